package sam

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// TestMatchesCDKStack holds the generated template to the synthesized CDK
// stack where each tool translates the catalogue its own way, which the
// generator cannot guarantee: the functions (size, runtime, environment
// names), the tables' keys and indexes, every role's permissions with their
// statements' ids (less what each tool adds by itself: CDK's X-Ray actions
// and own-log-group statement, SAM's managed policies), the routes, the
// event source mappings property for property, the stage's throttling and
// access logs, the gateway responses, and the retention of SAM's log groups.
func TestMatchesCDKStack(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := generated(t)
	globals := sam["Globals"].(obj)["Function"].(obj)
	cdkFns, samFns := resourcesOfType(cdk, "AWS::Lambda::Function"), resourcesOfType(sam, "AWS::Serverless::Function")

	tests := []check{
		{name: "function ids", cdk: func() any { return sortedKeys(cdkFns) }, sam: func() any { return sortedKeys(samFns) }},
		{name: "table ids", cdk: func() any { return sortedKeys(resourcesOfType(cdk, "AWS::DynamoDB::Table")) },
			sam: func() any { return sortedKeys(resourcesOfType(sam, "AWS::DynamoDB::Table")) }},
		{name: "routes", cdk: func() any { return cdkRoutes(cdk) }, sam: func() any { return samRoutes(sam) }},
		{name: "event source mappings", cdk: func() any { return cdkMappings(cdk) }, sam: func() any { return samMappings(sam) }},
		{name: "stage throttling", cdk: func() any { return stageWide(only(t, cdk, "AWS::ApiGateway::Stage")["MethodSettings"]) },
			sam: func() any { return stageWide(only(t, sam, "AWS::Serverless::Api")["MethodSettings"]) }},
		{name: "access logs", cdk: func() any { return only(t, cdk, "AWS::ApiGateway::Stage")["AccessLogSetting"] },
			sam: func() any { return only(t, sam, "AWS::Serverless::Api")["AccessLogSetting"] }},
		{name: "gateway responses", cdk: func() any { return cdkGatewayResponses(cdk) },
			sam: func() any { return samGatewayResponses(only(t, sam, "AWS::Serverless::Api")) }},
		{name: "outputs", cdk: func() any { return urlOutputs(cdk, true) }, sam: func() any { return urlOutputs(sam, false) }},
		{name: "state machine permissions",
			cdk: func() any { return cdkPermissions(cdk, stack.DecisionStateMachineID+"Role") },
			sam: func() any {
				return samPermissions(resourcesOfType(sam, "AWS::Serverless::StateMachine")[stack.DecisionStateMachineID])
			}},
	}
	for _, f := range deploy.Functions() {
		c, s := cdkFns[f.LogicalID], samFns[f.LogicalID]
		if c == nil || s == nil {
			t.Fatalf("%s: CDK %v, SAM %v", f.LogicalID, c != nil, s != nil)
		}
		for _, k := range []string{"Runtime", "Handler", "Architectures", "MemorySize", "Timeout"} {
			tests = append(tests, check{name: f.LogicalID + " " + k, cdk: func() any { return c[k] }, sam: func() any {
				if v, ok := s[k]; ok {
					return v
				}
				return globals[k]
			}})
		}
		tests = append(tests,
			check{name: f.LogicalID + " environment", cdk: func() any { return envNames(c) }, sam: func() any { return envNames(s) }},
			check{name: f.LogicalID + " permissions", cdk: func() any { return cdkPermissions(cdk, f.LogicalID+"Role") }, sam: func() any { return samPermissions(s) }},
		)
	}
	cdkTables, samTables := resourcesOfType(cdk, "AWS::DynamoDB::Table"), resourcesOfType(sam, "AWS::DynamoDB::Table")
	for id := range cdkTables {
		for _, k := range []string{"KeySchema", "AttributeDefinitions", "LocalSecondaryIndexes", "GlobalSecondaryIndexes", "StreamSpecification", "TimeToLiveSpecification"} {
			tests = append(tests, check{name: id + " " + k, cdk: func() any { return cdkTables[id][k] }, sam: func() any { return samTables[id][k] },
				mayBeEmpty: !strings.HasPrefix(k, "Key") && k != "AttributeDefinitions"})
		}
	}
	// The buckets property for property (less the stack's tags, CDK's
	// alone), their TLS-only policies, their outputs.
	cdkBuckets, samBuckets := resourcesOfType(cdk, "AWS::S3::Bucket"), resourcesOfType(sam, "AWS::S3::Bucket")
	tests = append(tests, check{name: "bucket ids", cdk: func() any { return sortedKeys(cdkBuckets) }, sam: func() any { return sortedKeys(samBuckets) }})
	for _, b := range deploy.Buckets() {
		tests = append(tests,
			check{name: b.LogicalID + " properties", cdk: func() any { return without(cdkBuckets[b.LogicalID], "Tags") },
				// The Dev stack names no replica region: TestReplicationMatchesCDK.
				sam: func() any { return without(samBuckets[b.LogicalID], "ReplicationConfiguration") }},
			check{name: b.LogicalID + " retained", cdk: func() any { return attrs(cdk, b.LogicalID) }, sam: func() any { return attrs(sam, b.LogicalID) }},
			check{name: b.LogicalID + " policy", cdk: func() any { return resourcesOfType(cdk, "AWS::S3::BucketPolicy")[stack.BucketPolicyLogicalID(b)] },
				sam: func() any { return resourcesOfType(sam, "AWS::S3::BucketPolicy")[stack.BucketPolicyLogicalID(b)] }},
			check{name: b.LogicalID + " output", cdk: func() any { return cdk["Outputs"].(obj)[stack.BucketOutput(b)] },
				sam: func() any { return sam["Outputs"].(obj)[stack.BucketOutput(b)] }},
		)
	}
	l := deploy.AccessLogs()
	tests = append(tests,
		check{name: l.LogicalID + " properties", cdk: func() any { return without(cdkBuckets[l.LogicalID], "Tags") }, sam: func() any { return samBuckets[l.LogicalID] }},
		check{name: l.LogicalID + " retained", cdk: func() any { return attrs(cdk, l.LogicalID) }, sam: func() any { return attrs(sam, l.LogicalID) }},
		check{name: l.LogicalID + " policy", cdk: func() any { return resourcesOfType(cdk, "AWS::S3::BucketPolicy")[l.LogicalID+"Policy"] },
			sam: func() any { return resourcesOfType(sam, "AWS::S3::BucketPolicy")[l.LogicalID+"Policy"] }},
		check{name: l.LogicalID + " output", cdk: func() any { return cdk["Outputs"].(obj)[stack.AccessLogsOutput()] },
			sam: func() any { return sam["Outputs"].(obj)[stack.AccessLogsOutput()] }},
	)
	// The customer-managed keys: the same ones, kept alike, rotated alike.
	cdkKeys, samKeys := resourcesOfType(cdk, "AWS::KMS::Key"), resourcesOfType(sam, "AWS::KMS::Key")
	tests = append(tests, check{name: "key ids", cdk: func() any { return sortedKeys(cdkKeys) }, sam: func() any { return sortedKeys(samKeys) }})
	for id := range cdkKeys {
		tests = append(tests,
			check{name: id + " retained", cdk: func() any { return attrs(cdk, id) }, sam: func() any { return attrs(sam, id) }},
			check{name: id + " rotation", cdk: func() any { return cdkKeys[id]["EnableKeyRotation"] }, sam: func() any { return samKeys[id]["EnableKeyRotation"] }},
		)
	}
	// SAM's log groups (the functions' are Lambda's own there) keep their
	// events as long as the CDK stack's of the same id.
	cdkLogs := resourcesOfType(cdk, "AWS::Logs::LogGroup")
	for id, lg := range resourcesOfType(sam, "AWS::Logs::LogGroup") {
		tests = append(tests, check{name: id + " retention", cdk: func() any { return cdkLogs[id]["RetentionInDays"] }, sam: func() any { return lg["RetentionInDays"] }})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := canonical(tc.cdk()), canonical(tc.sam())
			if a != b {
				t.Errorf("\n CDK %s\n SAM %s", a, b)
			}
			if a == "" && !tc.mayBeEmpty {
				t.Error("neither has it")
			}
		})
	}
}

// urlOutputs are the outputs both templates build from the stage's URL
// (ApiUrl aside: CDK's ends in a slash, SAM's does not), rendered as SAM
// names things.
func urlOutputs(tmpl obj, isCDK bool) map[string]string {
	out := map[string]string{}
	for _, name := range []string{stack.OpenAPIURLOutput, stack.SettingsURLOutput, stack.ConsoleURLOutput} {
		o, _ := tmpl["Outputs"].(obj)[name].(obj)
		if isCDK {
			out[name] = asSAM(tmpl, o["Value"])
		} else {
			out[name] = render(o["Value"])
		}
	}
	return out
}

// asSAM renders a value of the CDK template as SAM's template names
// things: the REST API and its stage, which have logical ids of CDK's
// making there, are SAM's RestApi and its Stage parameter.
func asSAM(cdk obj, v any) string {
	s := render(v)
	for typ, name := range map[string]string{"AWS::ApiGateway::RestApi": restAPIID, "AWS::ApiGateway::Stage": "Stage"} {
		for id := range resourcesOfType(cdk, typ) {
			s = strings.ReplaceAll(s, "${"+id+"}", "${"+name+"}")
		}
	}
	return s
}

// check compares one thing of both templates, canonically.
type check struct {
	name       string
	cdk, sam   func() any
	mayBeEmpty bool // a table without indexes, stream or TTL
}

func envNames(props obj) []string {
	env, _ := props["Environment"].(obj)
	vars, _ := env["Variables"].(obj)
	return sortedKeys(vars)
}

// render writes an intrinsic as Fn::Sub would (stacktest.Render), any
// other value canonically.
func render(v any) string { return stacktest.Render(v, canonical) }

// canonical renders a value with maps in key order, lists sorted and
// intrinsics rendered, so that order that means nothing is ignored.
func canonical(v any) string {
	switch x := v.(type) {
	case obj:
		for _, k := range []string{"Ref", "Fn::GetAtt", "Fn::Sub", "Fn::Join"} {
			if _, ok := x[k]; ok && len(x) == 1 {
				return render(x)
			}
		}
		var parts []string
		for _, k := range sortedKeys(x) {
			parts = append(parts, k+":"+canonical(x[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, canonical(e))
		}
		sort.Strings(parts)
		return "[" + strings.Join(parts, ",") + "]"
	case []string:
		return canonical(toAny(x))
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// permissions flattens statements into sorted "sid effect action resource"
// (and " if <condition>" for a conditioned one),
// leaving out what only one tool adds: X-Ray actions (CDK's tracing) and the
// CDK role's own log group.
func permissions(statements []any) []string {
	list := func(v any) []any {
		if l, ok := v.([]any); ok {
			return l
		}
		return []any{v}
	}
	var out []string
	for _, st := range statements {
		st := st.(obj)
		if st["Sid"] == stack.OwnLogsSid {
			continue
		}
		for _, a := range list(st["Action"]) {
			if strings.HasPrefix(fmt.Sprint(a), "xray:") {
				continue
			}
			for _, r := range list(st["Resource"]) {
				p := fmt.Sprintf("%v %v %v %s", st["Sid"], st["Effect"], a, render(r))
				if c, ok := st["Condition"]; ok {
					p += " if " + canonical(c)
				}
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

func cdkPermissions(cdk obj, roleID string) []string {
	var statements []any
	for _, pol := range resourcesOfType(cdk, "AWS::IAM::Policy") {
		for _, r := range pol["Roles"].([]any) {
			if render(r) == "${"+roleID+"}" {
				statements = append(statements, pol["PolicyDocument"].(obj)["Statement"].([]any)...)
			}
		}
	}
	return permissions(statements)
}

func samPermissions(props obj) []string {
	var statements []any
	policies, _ := props["Policies"].([]any)
	for _, p := range policies {
		st, _ := p.(obj)["Statement"].([]any)
		statements = append(statements, st...)
	}
	return permissions(statements)
}

// samRoutes lists "METHOD path -> function" of every Api event.
func samRoutes(sam obj) []string {
	var out []string
	for id, props := range resourcesOfType(sam, "AWS::Serverless::Function") {
		events, _ := props["Events"].(obj)
		for _, e := range events {
			if e := e.(obj); e["Type"] == "Api" {
				p := e["Properties"].(obj)
				out = append(out, fmt.Sprintf("%v %v -> %s", p["Method"], p["Path"], id))
			}
		}
	}
	sort.Strings(out)
	return out
}

// cdkRoutes lists "METHOD path -> function" of every Lambda-integrated
// method, its path walked up the resources' ParentIds.
func cdkRoutes(cdk obj) []string {
	res := cdk["Resources"].(obj)
	var path func(ref any) string
	path = func(ref any) string {
		m, _ := ref.(obj)
		id, ok := m["Ref"].(string)
		if !ok { // the API's root resource
			return ""
		}
		p := res[id].(obj)["Properties"].(obj)
		return path(p["ParentId"]) + "/" + fmt.Sprint(p["PathPart"])
	}
	var out []string
	for _, p := range resourcesOfType(cdk, "AWS::ApiGateway::Method") {
		integ, _ := p["Integration"].(obj)
		uri := canonical(integ["Uri"])
		for _, f := range deploy.Functions() {
			if strings.Contains(uri, "${"+f.LogicalID+".Arn}") {
				out = append(out, fmt.Sprintf("%v %s -> %s", p["HttpMethod"], path(p["ResourceId"]), f.LogicalID))
			}
		}
	}
	sort.Strings(out)
	return out
}

// cdkMappings are the CDK stack's event source mappings by logical id.
func cdkMappings(cdk obj) map[string]obj {
	out := resourcesOfType(cdk, "AWS::Lambda::EventSourceMapping")
	for _, m := range out {
		delete(m, "Tags")
	}
	return out
}

// samMappings are the mappings SAM makes of the DynamoDB and SQS events:
// <function><event>, the Stream or Queue its EventSourceArn, the
// function's name its FunctionName; DestinationConfig.OnFailure.Type only
// tells SAM which send permission to add.
func samMappings(sam obj) map[string]obj {
	out := map[string]obj{}
	for fid, f := range resourcesOfType(sam, "AWS::Serverless::Function") {
		events, _ := f["Events"].(obj)
		for name, e := range events {
			e := e.(obj)
			src := map[any]string{"DynamoDB": "Stream", "SQS": "Queue"}[e["Type"]]
			if src == "" {
				continue
			}
			p := obj{"FunctionName": obj{"Ref": fid}}
			for k, v := range e["Properties"].(obj) {
				p[k] = v
			}
			p["EventSourceArn"] = p[src]
			delete(p, src)
			if dc, ok := p["DestinationConfig"].(obj); ok {
				p["DestinationConfig"] = obj{"OnFailure": obj{"Destination": dc["OnFailure"].(obj)["Destination"]}}
			}
			out[fid+name] = p
		}
	}
	return out
}

// The mappings SAM makes are named as the CDK stack names its own.
func TestMappingIDs(t *testing.T) {
	var want []string
	for _, f := range deploy.Functions() {
		want = append(want, stack.EventSourceMappingIDs(f)...)
	}
	sort.Strings(want)
	if got := sortedKeys(samMappings(generated(t))); !slices.Equal(got, want) {
		t.Errorf("mappings %v, want %v", got, want)
	}
}

// only is the properties of the one resource of a type.
func only(t *testing.T, tmpl obj, typ string) obj {
	t.Helper()
	rs := resourcesOfType(tmpl, typ)
	if len(rs) != 1 {
		t.Fatalf("%d resources of type %s, want 1", len(rs), typ)
	}
	for _, p := range rs {
		return p
	}
	return nil
}

// stageWide is the method setting of every method ("*" on "/*"), less
// DataTraceEnabled, which SAM leaves at API Gateway's false.
func stageWide(settings any) obj {
	list, _ := settings.([]any)
	for _, s := range list {
		if s := s.(obj); s["HttpMethod"] == "*" && s["ResourcePath"] == "/*" {
			out := obj{}
			for k, v := range s {
				if k != "DataTraceEnabled" {
					out[k] = v
				}
			}
			return out
		}
	}
	return nil
}

// cdkGatewayResponses are the gateway responses by type, as SAM spells
// them: StatusCode, ResponseTemplates and the headers.
func cdkGatewayResponses(cdk obj) obj {
	out := obj{}
	for _, p := range resourcesOfType(cdk, "AWS::ApiGateway::GatewayResponse") {
		r := obj{"ResponseTemplates": p["ResponseTemplates"]}
		if s, ok := p["StatusCode"]; ok {
			r["StatusCode"] = s
		}
		headers := obj{}
		params, _ := p["ResponseParameters"].(obj)
		for k, v := range params {
			headers[strings.TrimPrefix(k, "gatewayresponse.header.")] = v
		}
		r["ResponseParameters"] = obj{"Headers": headers}
		out[fmt.Sprint(p["ResponseType"])] = r
	}
	return out
}

func samGatewayResponses(api obj) any { return api["GatewayResponses"] }

// TestSettingsMatchCDKStack: each function's settings have the same value
// in both templates, template.yaml's parameters given as the CDK stack's
// context gives its settings: on the dev stack (none given: the defaults,
// SETTINGS_BASE_URL the stage's URL in both) and on the prod stack (some
// given, SETTINGS_BASE_URL a custom domain's).
func TestSettingsMatchCDKStack(t *testing.T) {
	sam := generated(t)
	samFns := resourcesOfType(sam, "AWS::Serverless::Function")
	synth := stacktest.Synth(t)
	stageURLGiven := false
	for _, s := range []*stacktest.Synthesized{synth.Dev, synth.Prod} {
		params := map[string]string{}
		for name, p := range sam["Parameters"].(obj) {
			params[name] = fmt.Sprint(p.(obj)["Default"])
		}
		params["Stage"] = s.Props.Stage
		for k, v := range s.Props.Settings {
			params[k] = v
		}
		cdkFns := resourcesOfType(s.JSON, "AWS::Lambda::Function")
		for _, f := range deploy.Functions() {
			for _, set := range f.Settings {
				stageURLGiven = stageURLGiven || set.DefaultsToStageURL && s.Props.Settings[set.Parameter] != ""
				t.Run(s.Props.Stage+" "+f.LogicalID+" "+set.EnvVar, func(t *testing.T) {
					cdkValue := asSAM(s.JSON, envVar(cdkFns[f.LogicalID], set.EnvVar))
					samValue := atParameters(t, sam, envVar(samFns[f.LogicalID], set.EnvVar), params)
					if cdkValue != samValue {
						t.Errorf("\n CDK %s\n SAM %s", cdkValue, samValue)
					}
					if set.DefaultsToStageURL && s.Props.Settings[set.Parameter] == "" {
						if want := stageURL; samValue != want {
							t.Errorf("%s = %s, want the stage's URL %s", set.EnvVar, samValue, want)
						}
					}
				})
			}
		}
	}
	if !stageURLGiven {
		t.Error("neither stack gives a setting that defaults to the stage's URL a value of its own")
	}
}

// envVar is a function's environment variable.
func envVar(props obj, name string) any {
	env, _ := props["Environment"].(obj)
	vars, _ := env["Variables"].(obj)
	return vars[name]
}

// atParameters renders a value of template.yaml with its parameters at
// these values: a Ref to a parameter is its value, an If takes the branch
// its condition (an Equals of such values) chooses.
func atParameters(t *testing.T, tmpl obj, v any, params map[string]string) string {
	t.Helper()
	x, _ := v.(obj)
	if r, ok := x["Ref"].(string); ok {
		if p, ok := params[r]; ok {
			return p
		}
	}
	if args, ok := x["Fn::If"].([]any); ok && len(args) == 3 {
		conditions, _ := tmpl["Conditions"].(obj)
		cond, _ := conditions[fmt.Sprint(args[0])].(obj)
		eq, ok := cond["Fn::Equals"].([]any)
		if !ok || len(eq) != 2 {
			t.Fatalf("condition %v is %v, not an Equals of two values", args[0], cond)
		}
		if atParameters(t, tmpl, eq[0], params) == atParameters(t, tmpl, eq[1], params) {
			return atParameters(t, tmpl, args[1], params)
		}
		return atParameters(t, tmpl, args[2], params)
	}
	return render(v)
}

// without is props less some keys.
func without(props obj, keys ...string) obj {
	out := obj{}
	for k, v := range props {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// attrs are a resource's DeletionPolicy and UpdateReplacePolicy.
func attrs(tmpl obj, id string) string {
	r, _ := tmpl["Resources"].(obj)[id].(obj)
	return fmt.Sprint(r["DeletionPolicy"], " ", r["UpdateReplacePolicy"])
}
