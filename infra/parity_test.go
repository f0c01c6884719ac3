package main

// The parity test holds template.yaml (SAM) and the CDK stack to one
// another: the same functions (runtime, architecture, handler, memory,
// timeout, environment variable names, code), the same tables (keys,
// indexes, stream, TTL), the same secrets and the same routes; and the same
// decision workflow and periodic-review schedule (TestWorkflowMatchesCDK).
// Adding a function, a table or a route to one and not the other fails here.
// A function may have no route and no event source (decision, admin): its
// template.yaml entry then has no event either (TestFunctionEventsMatchCatalogue).

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// loadSAM reads template.yaml, turning the short intrinsic tags (!Ref x,
// !GetAtt a.b, !Sub s) into their long JSON forms.
func loadSAM(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		t.Fatal(err)
	}
	return toValue(n.Content[0]).(map[string]any)
}

func toValue(n *yaml.Node) any {
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = toValue(n.Content[i+1])
		}
		v = m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			l = append(l, toValue(c))
		}
		v = l
	case yaml.AliasNode:
		return toValue(n.Alias)
	default:
		v = n.Value
	}
	switch tag := n.Tag; {
	case tag == "!Ref":
		return map[string]any{"Ref": v}
	case tag == "!GetAtt":
		if s, ok := v.(string); ok {
			a, b, _ := strings.Cut(s, ".")
			return map[string]any{"Fn::GetAtt": []any{a, b}}
		}
		return map[string]any{"Fn::GetAtt": v}
	case strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!"):
		return map[string]any{"Fn::" + tag[1:]: v}
	}
	return v
}

func resourcesOfType(tmpl map[string]any, types ...string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range tmpl["Resources"].(map[string]any) {
		rm := r.(map[string]any)
		for _, typ := range types {
			if rm["Type"] == typ {
				props, _ := rm["Properties"].(map[string]any)
				out[id] = props
			}
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// norm renders a value so that "5" and 5 compare equal (YAML scalars are
// strings), 1209600 included (not 1.2096e+06).
func norm(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func envNames(props map[string]any) []string {
	env, _ := props["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	return keys(vars)
}

func TestTemplateMatchesCDK(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := loadSAM(t)
	globals := sam["Globals"].(map[string]any)["Function"].(map[string]any)

	// Functions.
	cdkFns := resourcesOfType(cdk, "AWS::Lambda::Function")
	samFns := resourcesOfType(sam, "AWS::Serverless::Function")
	if !reflect.DeepEqual(keys(cdkFns), keys(samFns)) {
		t.Fatalf("functions differ:\n CDK %v\n SAM %v", keys(cdkFns), keys(samFns))
	}
	for _, f := range deploy.Functions() {
		c, s := cdkFns[f.LogicalID], samFns[f.LogicalID]
		if c == nil || s == nil {
			t.Errorf("%s: missing (CDK %v, SAM %v)", f.LogicalID, c != nil, s != nil)
			continue
		}
		pick := func(p map[string]any, k string) string {
			if v, ok := p[k]; ok {
				return norm(v)
			}
			return norm(globals[k])
		}
		for _, k := range []string{"Runtime", "Handler", "MemorySize", "Timeout", "Architectures"} {
			if pick(c, k) != pick(s, k) {
				t.Errorf("%s %s: CDK %s, SAM %s", f.LogicalID, k, pick(c, k), pick(s, k))
			}
		}
		if !reflect.DeepEqual(envNames(c), envNames(s)) {
			t.Errorf("%s environment: CDK %v, SAM %v", f.LogicalID, envNames(c), envNames(s))
		}
		if s["CodeUri"] != "functions/"+f.Name {
			t.Errorf("%s CodeUri = %v, want functions/%s", f.LogicalID, s["CodeUri"], f.Name)
		}
	}
	// The CDK stack's code is build/<name> (an asset, named in its metadata).
	for id, r := range cdk["Resources"].(map[string]any) {
		rm := r.(map[string]any)
		if rm["Type"] != "AWS::Lambda::Function" {
			continue
		}
		md, _ := rm["Metadata"].(map[string]any)
		if p, ok := md["aws:asset:path"]; ok && strings.Contains(norm(p), "/") && !strings.HasSuffix(norm(p), "/"+nameOf(id)) {
			t.Errorf("%s code from %v", id, p)
		}
	}

	// Tables.
	cdkTables := resourcesOfType(cdk, "AWS::DynamoDB::Table")
	samTables := resourcesOfType(sam, "AWS::DynamoDB::Table")
	if !reflect.DeepEqual(keys(cdkTables), keys(samTables)) {
		t.Fatalf("tables differ:\n CDK %v\n SAM %v", keys(cdkTables), keys(samTables))
	}
	for id := range cdkTables {
		for _, k := range []string{"KeySchema", "AttributeDefinitions", "LocalSecondaryIndexes", "GlobalSecondaryIndexes", "StreamSpecification", "TimeToLiveSpecification"} {
			if a, b := canonical(cdkTables[id][k]), canonical(samTables[id][k]); a != b {
				t.Errorf("table %s %s:\n CDK %s\n SAM %s", id, k, a, b)
			}
		}
	}

	// Every index of shared/schema is in both, in the list its kind says
	// (the comparison above would pass if both lacked one).
	for _, tb := range schema.Tables() {
		id := deploy.TableLogicalID(tb.ID)
		for _, ix := range tb.Indexes {
			list := "GlobalSecondaryIndexes"
			if ix.Local {
				list = "LocalSecondaryIndexes"
			}
			for name, tmpl := range map[string]map[string]map[string]any{"CDK": cdkTables, "SAM": samTables} {
				if !hasIndex(tmpl[id][list], ix.Name) {
					t.Errorf("%s: table %s has no %s %s", name, id, list, ix.Name)
				}
			}
		}
	}

	// Secrets.
	if a, b := keys(resourcesOfType(cdk, "AWS::SecretsManager::Secret")), keys(resourcesOfType(sam, "AWS::SecretsManager::Secret")); !reflect.DeepEqual(a, b) {
		t.Errorf("secrets: CDK %v, SAM %v", a, b)
	}

	// Routes: method and path to function; each resource path also has an
	// ANY method. Not every function has a route.
	if n, want := len(samRoutes(sam)), len(deploy.Routes())+len(stack.ResourcePaths()); n != want {
		t.Errorf("%d routes found in template.yaml, want %d", n, want)
	}
	if len(cdkFns) != len(deploy.Functions()) {
		t.Errorf("%d functions, catalogue has %d", len(cdkFns), len(deploy.Functions()))
	}
	if a, b := cdkRoutes(t, cdk), samRoutes(sam); !reflect.DeepEqual(a, b) {
		t.Errorf("routes differ:\n CDK %v\n SAM %v", a, b)
	}
}

// hasIndex reports whether a list of index definitions names one.
func hasIndex(list any, name string) bool {
	l, _ := list.([]any)
	for _, ix := range l {
		if m, ok := ix.(map[string]any); ok && norm(m["IndexName"]) == name {
			return true
		}
	}
	return false
}

// TestFunctionEventsMatchCatalogue: a function's events in template.yaml are
// what the catalogue gives it: Api events exactly for a route, a DynamoDB
// event for a stream source, an SQS event for a queue source, the Schedule
// of the periodic reviews; none for a function that is only invoked (the
// decision function by the state machine, the admin function through the
// Lambda Invoke API). The CDK stack's side is in infra/stack's tests.
func TestFunctionEventsMatchCatalogue(t *testing.T) {
	samFns := resourcesOfType(loadSAM(t), "AWS::Serverless::Function")
	for _, f := range deploy.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			want := map[string]bool{}
			if _, ok := f.Route(); ok {
				want["Api"] = true
			}
			if f.Stream != nil {
				want["DynamoDB"] = true
			}
			if f.Queue != nil {
				want["SQS"] = true
			}
			if f.Name == stack.PeriodicReviewsFunction {
				want["Schedule"] = true
			}
			props, ok := samFns[f.LogicalID]
			if !ok {
				t.Fatalf("no %s in template.yaml", f.LogicalID)
			}
			got := map[string]bool{}
			events, _ := props["Events"].(map[string]any)
			for _, e := range events {
				got[norm(e.(map[string]any)["Type"])] = true
			}
			if !reflect.DeepEqual(keys(got), keys(want)) {
				t.Errorf("event types %v, want %v", keys(got), keys(want))
			}
		})
	}
	admin, ok := deploy.Lookup(stack.AdminFunction)
	if !ok {
		t.Fatalf("no function %s in the catalogue", stack.AdminFunction)
	}
	if _, hasRoute := admin.Route(); hasRoute || admin.Stream != nil || admin.Queue != nil {
		t.Errorf("the catalogue gives %s a route or an event source; it is invoked only", admin.Name)
	}
}

// TestAdminOutputMatchesCDK: both name the admin function in the output
// AdminFunctionName and say how to invoke it.
func TestAdminOutputMatchesCDK(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := loadSAM(t)
	admin, _ := deploy.Lookup(stack.AdminFunction)
	for name, tmpl := range map[string]map[string]any{"CDK": cdk, "SAM": sam} {
		o, _ := tmpl["Outputs"].(map[string]any)[stack.AdminFunctionOutput].(map[string]any)
		if o == nil {
			t.Errorf("%s: no output %s", name, stack.AdminFunctionOutput)
			continue
		}
		if got := intrinsic(o["Value"]); got != "${"+admin.LogicalID+"}" {
			t.Errorf("%s: output %s = %s, want the name of %s", name, stack.AdminFunctionOutput, got, admin.LogicalID)
		}
		if d := norm(o["Description"]); !strings.Contains(d, "aws lambda invoke") || !strings.Contains(d, "--payload") {
			t.Errorf("%s: output %s's description %q does not say how to invoke it", name, stack.AdminFunctionOutput, d)
		}
	}
}

// TestRefusalsAreNotAlarmedOn: a function whose Lambda errors include
// refusals by design (deploy.Function.RefusesWithErrors) is alarmed on in
// neither template by its Lambda Errors, which would page on every refusal.
// The CDK stack alarms on its faults instead (stack.FaultsMetric: its ERROR
// log lines and timeouts; infra/stack's TestFaultsMetrics holds the shape);
// template.yaml's alarms are the pipeline's only (TestPipelineMatchesCDK).
func TestRefusalsAreNotAlarmedOn(t *testing.T) {
	templates := []struct {
		name   string
		tmpl   map[string]any
		faults int // alarms on the function's FaultsMetric
	}{
		{name: "CDK", tmpl: stacktest.Template(t), faults: 1},
		{name: "SAM", tmpl: loadSAM(t), faults: 0},
	}
	var refusing []string
	for _, f := range deploy.Functions() {
		if !f.RefusesWithErrors {
			continue
		}
		refusing = append(refusing, f.Name)
		for _, tc := range templates {
			t.Run(f.Name+"/"+tc.name, func(t *testing.T) {
				var faults []string
				for id, a := range resourcesOfType(tc.tmpl, "AWS::CloudWatch::Alarm") {
					if norm(a["MetricName"]) == stack.FaultsMetric(f) {
						faults = append(faults, id)
					}
					if norm(a["Namespace"]) != "AWS/Lambda" || norm(a["MetricName"]) != "Errors" {
						continue
					}
					dims, _ := a["Dimensions"].([]any)
					for _, d := range dims {
						d, _ := d.(map[string]any)
						if norm(d["Name"]) == "FunctionName" && intrinsic(d["Value"]) == "${"+f.LogicalID+"}" {
							t.Errorf("alarm %s is on %s's Lambda Errors, which count its refusals", id, f.LogicalID)
						}
					}
				}
				if len(faults) != tc.faults {
					t.Errorf("alarms on %s: %v, want %d", stack.FaultsMetric(f), faults, tc.faults)
				}
			})
		}
	}
	for _, name := range []string{stack.DecisionFunction, stack.AdminFunction} {
		if !slices.Contains(refusing, name) {
			t.Errorf("the catalogue does not say %s refuses with errors (its refusals are Lambda errors)", name)
		}
	}
}

func nameOf(logicalID string) string {
	for _, f := range deploy.Functions() {
		if f.LogicalID == logicalID {
			return f.Name
		}
	}
	return logicalID
}

// canonical renders a value with maps in key order and lists sorted, so
// order that means nothing (attribute definitions, indexes) is ignored.
func canonical(v any) string {
	switch x := v.(type) {
	case map[string]any:
		parts := []string{}
		for _, k := range keys(x) {
			parts = append(parts, k+":"+canonical(x[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := []string{}
		for _, e := range x {
			parts = append(parts, canonical(e))
		}
		sort.Strings(parts)
		return "[" + strings.Join(parts, ",") + "]"
	case nil:
		return ""
	default:
		return norm(x)
	}
}

func samRoutes(sam map[string]any) []string {
	var out []string
	for id, props := range resourcesOfType(sam, "AWS::Serverless::Function") {
		events, _ := props["Events"].(map[string]any)
		for _, e := range events {
			em := e.(map[string]any)
			if em["Type"] != "Api" {
				continue
			}
			p := em["Properties"].(map[string]any)
			out = append(out, fmt.Sprintf("%s %s -> %s", p["Method"], p["Path"], id))
		}
	}
	sort.Strings(out)
	return out
}

func cdkRoutes(t *testing.T, cdk map[string]any) []string {
	res := cdk["Resources"].(map[string]any)
	var path func(ref any) string
	path = func(ref any) string {
		m, ok := ref.(map[string]any)
		if !ok {
			return ""
		}
		if _, ok := m["Fn::GetAtt"]; ok { // the API's root resource
			return ""
		}
		id := norm(m["Ref"])
		r := res[id].(map[string]any)
		p := r["Properties"].(map[string]any)
		return path(p["ParentId"]) + "/" + norm(p["PathPart"])
	}
	var out []string
	for _, r := range res {
		rm := r.(map[string]any)
		if rm["Type"] != "AWS::ApiGateway::Method" {
			continue
		}
		p := rm["Properties"].(map[string]any)
		integ, _ := p["Integration"].(map[string]any)
		fn := ""
		for _, f := range deploy.Functions() {
			if strings.Contains(canonical(integ["Uri"]), f.LogicalID) {
				fn = f.LogicalID
			}
		}
		if fn == "" {
			continue // not a Lambda route (none today)
		}
		out = append(out, fmt.Sprintf("%s %s -> %s", p["HttpMethod"], path(p["ResourceId"]), fn))
	}
	sort.Strings(out)
	return out
}

// TestWorkflowMatchesCDK: the one ASL file with the same substitutions, the
// same logging, tracing and role permissions, the same approvals topic; the
// same schedule of the same function; the same outputs.
func TestWorkflowMatchesCDK(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := loadSAM(t)
	stage := norm(sam["Parameters"].(map[string]any)["Stage"].(map[string]any)["Default"])
	// render writes an intrinsic value as a Fn::Sub string ("${X.Arn}",
	// "${X}"), with template.yaml's ${Stage} at its default, the CDK
	// stack's stage.
	render := func(v any) string { return strings.ReplaceAll(intrinsic(v), "${Stage}", stage) }

	// The state machine.
	cdkSMs := resourcesOfType(cdk, "AWS::StepFunctions::StateMachine")
	samSMs := resourcesOfType(sam, "AWS::Serverless::StateMachine")
	id := stack.DecisionStateMachineID
	if want := []string{id}; !reflect.DeepEqual(keys(cdkSMs), want) || !reflect.DeepEqual(keys(samSMs), want) {
		t.Fatalf("state machines: CDK %v, SAM %v, want %v", keys(cdkSMs), keys(samSMs), want)
	}
	c, s := cdkSMs[id], samSMs[id]
	if s["DefinitionUri"] != stack.DecisionDefinitionFile {
		t.Errorf("SAM DefinitionUri = %v, want %s", s["DefinitionUri"], stack.DecisionDefinitionFile)
	}
	text, err := stack.DecisionDefinition()
	if err != nil {
		t.Fatal(err)
	}
	if render(c["DefinitionString"]) != text {
		t.Errorf("the CDK stack's definition is not %s", stack.DecisionDefinitionFile)
	}
	subst := func(p map[string]any) map[string]string {
		out := map[string]string{}
		for k, v := range p["DefinitionSubstitutions"].(map[string]any) {
			out[k] = render(v)
		}
		return out
	}
	want := map[string]string{
		stack.SubstDecisionFunctionArn: "${DecisionFunction.Arn}",
		stack.SubstApprovalTopicArn:    "${" + stack.DecisionApprovalTopicID + "}",
	}
	if a, b := subst(c), subst(s); !reflect.DeepEqual(a, want) || !reflect.DeepEqual(b, want) {
		t.Errorf("DefinitionSubstitutions: CDK %v, SAM %v, want %v", a, b, want)
	}
	for _, k := range []string{"${" + stack.SubstDecisionFunctionArn + "}", "${" + stack.SubstApprovalTopicArn + "}"} {
		if !strings.Contains(text, k) {
			t.Errorf("%s has no placeholder %s", stack.DecisionDefinitionFile, k)
		}
	}
	if c["StateMachineType"] != s["Type"] || c["StateMachineType"] != "STANDARD" {
		t.Errorf("type: CDK %v, SAM %v", c["StateMachineType"], s["Type"])
	}
	if a, b := canonical(c["LoggingConfiguration"]), canonical(s["Logging"]); a != b {
		t.Errorf("logging:\n CDK %s\n SAM %s", a, b)
	}
	if a, b := canonical(c["TracingConfiguration"]), canonical(s["Tracing"]); a != b || a != "{Enabled:true}" {
		t.Errorf("tracing: CDK %s, SAM %s", a, b)
	}
	logGroup := stack.DecisionStateMachineID + "LogGroup"
	cl, sl := resourcesOfType(cdk, "AWS::Logs::LogGroup")[logGroup], resourcesOfType(sam, "AWS::Logs::LogGroup")[logGroup]
	if cl == nil || sl == nil || render(cl["LogGroupName"]) != render(sl["LogGroupName"]) || norm(cl["RetentionInDays"]) != norm(sl["RetentionInDays"]) {
		t.Errorf("log group %s: CDK %v, SAM %v", logGroup, cl, sl)
	}

	// The role: the same permissions on named resources, the same log
	// delivery actions on "*". X-Ray's come from CDK's tracing and SAM's
	// managed policy (AWSXrayWriteOnlyAccess).
	var cdkStatements []any
	for _, pol := range resourcesOfType(cdk, "AWS::IAM::Policy") {
		for _, r := range pol["Roles"].([]any) {
			if render(r) == "${"+id+"Role}" {
				cdkStatements = append(cdkStatements, pol["PolicyDocument"].(map[string]any)["Statement"].([]any)...)
			}
		}
	}
	var samStatements []any
	for _, p := range s["Policies"].([]any) {
		st, ok := p.(map[string]any)["Statement"].([]any)
		if !ok {
			t.Errorf("SAM policy %v: write statements, not a policy template", p)
			continue
		}
		samStatements = append(samStatements, st...)
	}
	a, b := permissions(cdkStatements, render), permissions(samStatements, render)
	var cdkXRay []string
	for _, p := range a {
		if strings.HasPrefix(p, "Allow xray:") {
			cdkXRay = append(cdkXRay, p)
		}
	}
	a = slicesWithout(a, cdkXRay)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("state machine permissions:\n CDK %v\n SAM %v", a, b)
	}
	if len(cdkXRay) == 0 {
		t.Error("the CDK role has no X-Ray permissions")
	}

	// The approvals topic, with the AWS managed key.
	ct, st := resourcesOfType(cdk, "AWS::SNS::Topic")[stack.DecisionApprovalTopicID], resourcesOfType(sam, "AWS::SNS::Topic")[stack.DecisionApprovalTopicID]
	if ct == nil || st == nil {
		t.Fatalf("%s: CDK %v, SAM %v", stack.DecisionApprovalTopicID, ct != nil, st != nil)
	}
	if k := render(ct["KmsMasterKeyId"]); render(st["KmsMasterKeyId"]) != stack.AWSManagedSNSKey || !strings.HasSuffix(k, ":"+stack.AWSManagedSNSKey) {
		t.Errorf("KmsMasterKeyId: CDK %s, SAM %s, want %s", k, render(st["KmsMasterKeyId"]), stack.AWSManagedSNSKey)
	}

	// The schedule.
	var cdkSchedules, samSchedules []string
	for rid, r := range resourcesOfType(cdk, "AWS::Events::Rule") {
		if r["ScheduleExpression"] == nil {
			continue
		}
		for _, tg := range r["Targets"].([]any) {
			tg := tg.(map[string]any)
			cdkSchedules = append(cdkSchedules, fmt.Sprintf("%s %v %s retry %s -> %s", render(r["Name"]), r["ScheduleExpression"], rid, canonical(tg["RetryPolicy"]), render(tg["Arn"])))
		}
	}
	for fid, f := range resourcesOfType(sam, "AWS::Serverless::Function") {
		events, _ := f["Events"].(map[string]any)
		for _, e := range events {
			e := e.(map[string]any)
			if e["Type"] != "Schedule" {
				continue
			}
			p := e["Properties"].(map[string]any)
			// SAM names the rule <function><event>; the CDK rule has its own id.
			samSchedules = append(samSchedules, fmt.Sprintf("%s %v %s retry %s -> ${%s.Arn}", render(p["Name"]), p["Schedule"], stack.PeriodicReviewsScheduleID, canonical(p["RetryPolicy"]), fid))
		}
	}
	wantSchedule := []string{fmt.Sprintf("%s %s %s retry {MaximumEventAgeInSeconds:%d,MaximumRetryAttempts:%d} -> ${PeriodicReviewsFunction.Arn}",
		stack.PeriodicReviewsRuleName(stage), stack.PeriodicReviewsSchedule, stack.PeriodicReviewsScheduleID,
		stack.PeriodicReviewsMaxEventAgeSeconds, stack.PeriodicReviewsRetryAttempts)}
	if !reflect.DeepEqual(cdkSchedules, wantSchedule) || !reflect.DeepEqual(samSchedules, wantSchedule) {
		t.Errorf("schedules:\n CDK  %v\n SAM  %v\n want %v", cdkSchedules, samSchedules, wantSchedule)
	}

	// The outputs.
	for _, o := range []string{"DecisionStateMachineArn", "DecisionApprovalTopicArn"} {
		co, _ := cdk["Outputs"].(map[string]any)[o].(map[string]any)
		so, _ := sam["Outputs"].(map[string]any)[o].(map[string]any)
		if co == nil || so == nil || render(co["Value"]) != render(so["Value"]) {
			t.Errorf("output %s: CDK %v, SAM %v", o, co, so)
		}
	}
}

// intrinsic writes a CloudFormation value as Fn::Sub would: "${X}" for a
// Ref, "${X.Attr}" for a GetAtt, joins concatenated, a Fn::Sub string as
// it is.
func intrinsic(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if r, ok := x["Ref"]; ok {
			return "${" + norm(r) + "}"
		}
		if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return "${" + norm(ga[0]) + "." + norm(ga[1]) + "}"
		}
		if sub, ok := x["Fn::Sub"].(string); ok {
			return sub
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			var parts []string
			for _, p := range j[1].([]any) {
				parts = append(parts, intrinsic(p))
			}
			return strings.Join(parts, norm(j[0]))
		}
	}
	return canonical(v)
}

// permissions flattens Allow statements into sorted "action resource" pairs.
func permissions(statements []any, render func(any) string) []string {
	list := func(v any) []any {
		if l, ok := v.([]any); ok {
			return l
		}
		return []any{v}
	}
	var out []string
	for _, st := range statements {
		st := st.(map[string]any)
		effect := norm(st["Effect"])
		for _, a := range list(st["Action"]) {
			for _, r := range list(st["Resource"]) {
				out = append(out, effect+" "+norm(a)+" "+render(r))
			}
		}
	}
	sort.Strings(out)
	return out
}

func slicesWithout(s, drop []string) []string {
	d := map[string]bool{}
	for _, x := range drop {
		d[x] = true
	}
	var out []string
	for _, x := range s {
		if !d[x] {
			out = append(out, x)
		}
	}
	return out
}

// deep writes every intrinsic inside a value as intrinsic does, so that
// canonical compares a CDK value with its template.yaml twin.
func deep(v any, render func(any) string) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"Ref", "Fn::GetAtt", "Fn::Sub", "Fn::Join"} {
			if _, ok := x[k]; ok && len(x) == 1 {
				return render(x)
			}
		}
		out := map[string]any{}
		for k, y := range x {
			out[k] = deep(y, render)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = deep(y, render)
		}
		return out
	}
	return v
}

// TestPipelineMatchesCDK: the review-events → deliveries → webhook-delivery
// pipeline is the same in template.yaml and the CDK stack: the queues
// (logical ids, encryption, retention, visibility, redrive) and their
// SSL-only policies, both event sources property for property (SAM's
// events, the CDK stack's mappings under the logical ids SAM gives them),
// the pipeline's alarms, the queues' outputs; and every setting is a
// template parameter with the catalogue's default.
func TestPipelineMatchesCDK(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := loadSAM(t)
	stage := norm(sam["Parameters"].(map[string]any)["Stage"].(map[string]any)["Default"])
	render := func(v any) string { return strings.ReplaceAll(intrinsic(v), "${Stage}", stage) }
	same := func(what string, a, b any) {
		t.Helper()
		if ca, cb := canonical(deep(a, render)), canonical(deep(b, render)); ca != cb {
			t.Errorf("%s:\n CDK %s\n SAM %s", what, ca, cb)
		}
	}

	// Queues.
	var wantQueues, wantPolicies []string
	for _, q := range deploy.Queues() {
		wantQueues = append(wantQueues, q.LogicalID)
		wantPolicies = append(wantPolicies, stack.QueuePolicyLogicalID(q.LogicalID))
	}
	sort.Strings(wantQueues)
	sort.Strings(wantPolicies)
	cdkQueues, samQueues := resourcesOfType(cdk, "AWS::SQS::Queue"), resourcesOfType(sam, "AWS::SQS::Queue")
	if !reflect.DeepEqual(keys(cdkQueues), wantQueues) || !reflect.DeepEqual(keys(samQueues), wantQueues) {
		t.Fatalf("queues: CDK %v, SAM %v, want %v", keys(cdkQueues), keys(samQueues), wantQueues)
	}
	for _, q := range deploy.Queues() {
		c, s := cdkQueues[q.LogicalID], samQueues[q.LogicalID]
		delete(c, "Tags")
		same("queue "+q.LogicalID, c, s)
		if norm(s["VisibilityTimeout"]) != norm(q.VisibilityTimeoutSeconds) || norm(s["MessageRetentionPeriod"]) != norm(q.RetentionDays*86400) || norm(s["SqsManagedSseEnabled"]) != "true" {
			t.Errorf("queue %s in template.yaml: %v, want the catalogue's %+v", q.LogicalID, s, q)
		}
	}
	cdkPolicies, samPolicies := resourcesOfType(cdk, "AWS::SQS::QueuePolicy"), resourcesOfType(sam, "AWS::SQS::QueuePolicy")
	if !reflect.DeepEqual(keys(cdkPolicies), wantPolicies) || !reflect.DeepEqual(keys(samPolicies), wantPolicies) {
		t.Errorf("queue policies: CDK %v, SAM %v, want %v", keys(cdkPolicies), keys(samPolicies), wantPolicies)
	}
	for id, c := range cdkPolicies {
		same("queue policy "+id, c, samPolicies[id])
	}

	// Event sources: SAM's DynamoDB and SQS events become mappings named
	// <function><event>; their Stream or Queue is the mapping's
	// EventSourceArn, and DestinationConfig.OnFailure.Type only tells SAM
	// which send permission to add.
	cdkMappings := resourcesOfType(cdk, "AWS::Lambda::EventSourceMapping")
	samMappings := map[string]map[string]any{}
	for fid, f := range resourcesOfType(sam, "AWS::Serverless::Function") {
		events, _ := f["Events"].(map[string]any)
		for name, e := range events {
			e := e.(map[string]any)
			typ := norm(e["Type"])
			if typ != "DynamoDB" && typ != "SQS" {
				continue
			}
			p := map[string]any{}
			for k, v := range e["Properties"].(map[string]any) {
				p[k] = v
			}
			src := map[string]string{"DynamoDB": "Stream", "SQS": "Queue"}[typ]
			p["EventSourceArn"] = p[src]
			delete(p, src)
			p["FunctionName"] = map[string]any{"Ref": fid}
			if dc, ok := p["DestinationConfig"].(map[string]any); ok {
				of := map[string]any{}
				for k, v := range dc["OnFailure"].(map[string]any) {
					of[k] = v
				}
				if of["Type"] != "SQS" {
					t.Errorf("%s.%s: OnFailure Type %v, want SQS (SAM then lets the function send there)", fid, name, of["Type"])
				}
				delete(of, "Type")
				p["DestinationConfig"] = map[string]any{"OnFailure": of}
			}
			samMappings[fid+name] = p
		}
	}
	var wantMappings []string
	for _, f := range deploy.Functions() {
		if id := stack.EventSourceMappingID(f); id != "" {
			wantMappings = append(wantMappings, id)
		}
	}
	sort.Strings(wantMappings)
	if !reflect.DeepEqual(keys(cdkMappings), wantMappings) || !reflect.DeepEqual(keys(samMappings), wantMappings) {
		t.Fatalf("event sources: CDK %v, SAM %v, want %v", keys(cdkMappings), keys(samMappings), wantMappings)
	}
	for id, c := range cdkMappings {
		delete(c, "Tags")
		same("event source "+id, c, samMappings[id])
	}

	// Alarms: every one template.yaml has is the CDK stack's, and the
	// pipeline's are in both. Actions: each template's own alarm topic, the
	// one its AlarmTopicArn output names.
	pipeline := []string{stack.WebhookDeliveriesFailedAlarm.LogicalID}
	for _, q := range stack.FailureQueues() {
		pipeline = append(pipeline, stack.QueueMessagesAlarm(q).LogicalID)
	}
	for _, q := range stack.ConsumedQueues() {
		pipeline = append(pipeline, stack.QueueAgeAlarm(q).LogicalID)
	}
	sort.Strings(pipeline)
	cdkAlarms, samAlarms := resourcesOfType(cdk, "AWS::CloudWatch::Alarm"), resourcesOfType(sam, "AWS::CloudWatch::Alarm")
	if !reflect.DeepEqual(keys(samAlarms), pipeline) {
		t.Errorf("template.yaml's alarms %v, want the pipeline's %v", keys(samAlarms), pipeline)
	}
	topicOf := func(tmpl map[string]any) string {
		o, _ := tmpl["Outputs"].(map[string]any)["AlarmTopicArn"].(map[string]any)
		if o == nil {
			t.Fatal("no AlarmTopicArn output")
		}
		return render(o["Value"])
	}
	cdkTopic, samTopic := topicOf(cdk), topicOf(sam)
	for _, id := range pipeline {
		c, s := cdkAlarms[id], samAlarms[id]
		if c == nil || s == nil {
			t.Errorf("alarm %s: CDK %v, SAM %v", id, c != nil, s != nil)
			continue
		}
		for _, k := range []string{"AlarmName", "AlarmDescription", "Namespace", "MetricName", "Dimensions", "Statistic", "ExtendedStatistic",
			"Period", "EvaluationPeriods", "DatapointsToAlarm", "Threshold", "ComparisonOperator", "TreatMissingData"} {
			same("alarm "+id+" "+k, c[k], s[k])
		}
		for _, k := range []string{"AlarmActions", "OKActions"} {
			if a, b := canonical(deep(c[k], render)), canonical(deep(s[k], render)); a != "["+cdkTopic+"]" || b != "["+samTopic+"]" {
				t.Errorf("alarm %s %s: CDK %s, SAM %s, want the alarm topics %s, %s", id, k, a, b, cdkTopic, samTopic)
			}
		}
	}

	// Outputs.
	for _, q := range deploy.Queues() {
		o := q.LogicalID + "Url"
		co, _ := cdk["Outputs"].(map[string]any)[o].(map[string]any)
		so, _ := sam["Outputs"].(map[string]any)[o].(map[string]any)
		if co == nil || so == nil || render(co["Value"]) != render(so["Value"]) || render(so["Value"]) != "${"+q.LogicalID+"}" {
			t.Errorf("output %s: CDK %v, SAM %v", o, co, so)
		}
	}

	// Settings: a parameter each, with the catalogue's default, the value
	// of the setting's variable wherever a function has it.
	params := sam["Parameters"].(map[string]any)
	for _, set := range deploy.Settings() {
		p, _ := params[set.Parameter].(map[string]any)
		if p == nil || norm(p["Default"]) != set.Default {
			t.Errorf("parameter %s = %v, want default %q", set.Parameter, p, set.Default)
		}
	}
	samFns := resourcesOfType(sam, "AWS::Serverless::Function")
	for _, f := range deploy.Functions() {
		vars, _ := samFns[f.LogicalID]["Environment"].(map[string]any)["Variables"].(map[string]any)
		for _, set := range f.Settings {
			if got := render(vars[set.EnvVar]); got != "${"+set.Parameter+"}" {
				t.Errorf("%s %s = %s, want the parameter %s", f.LogicalID, set.EnvVar, got, set.Parameter)
			}
		}
		for _, id := range f.SendsTo {
			q, _ := deploy.LookupQueue(id)
			if got := render(vars[q.EnvVar]); got != "${"+q.LogicalID+"}" {
				t.Errorf("%s %s = %s, want the URL of %s", f.LogicalID, q.EnvVar, got, q.LogicalID)
			}
		}
	}
}

// TestFunctionPermissionsMatchCDK: each function's statements in
// template.yaml are, action for resource, the CDK role's, except what each
// tool adds by itself: CDK's X-Ray actions (SAM's come from Tracing) and
// the CDK role's writing to its own log group (SAM attaches
// AWSLambdaBasicExecutionRole, and the event sources' managed policies).
func TestFunctionPermissionsMatchCDK(t *testing.T) {
	cdk := stacktest.Template(t)
	sam := loadSAM(t)
	render := func(v any) string { return intrinsic(v) }
	samFns := resourcesOfType(sam, "AWS::Serverless::Function")
	for _, f := range deploy.Functions() {
		var cdkStatements []any
		for _, pol := range resourcesOfType(cdk, "AWS::IAM::Policy") {
			for _, r := range pol["Roles"].([]any) {
				if render(r) == "${"+f.LogicalID+"Role}" {
					cdkStatements = append(cdkStatements, pol["PolicyDocument"].(map[string]any)["Statement"].([]any)...)
				}
			}
		}
		var kept []any
		for _, st := range cdkStatements {
			if sid := norm(st.(map[string]any)["Sid"]); sid == "WriteOwnLogs" {
				continue
			}
			kept = append(kept, st)
		}
		a := permissions(kept, render)
		var xray []string
		for _, p := range a {
			if strings.HasPrefix(p, "Allow xray:") {
				xray = append(xray, p)
			}
		}
		a = slicesWithout(a, xray)
		var samStatements []any
		policies, _ := samFns[f.LogicalID]["Policies"].([]any)
		for _, p := range policies {
			st, ok := p.(map[string]any)["Statement"].([]any)
			if !ok {
				t.Errorf("%s: SAM policy %v: write statements, not a policy template", f.LogicalID, p)
				continue
			}
			samStatements = append(samStatements, st...)
		}
		if b := permissions(samStatements, render); !reflect.DeepEqual(a, b) {
			t.Errorf("%s permissions:\n CDK %v\n SAM %v", f.LogicalID, a, b)
		}
	}
}
