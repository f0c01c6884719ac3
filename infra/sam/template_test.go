package sam

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// The checks here hold what the generator cannot guarantee by construction:
// that what it derives from the catalogue is what the catalogue means (the
// events a function gets, the alarms it does not), and that the template
// refers only to what exists.

type obj = map[string]any

// generated is the generated template decoded into plain values, with the
// short intrinsics in their JSON forms ({"Ref": x}, {"Fn::GetAtt": [a, b]},
// {"Fn::Sub": s}, {"Fn::If": [c, a, b]}, {"Fn::Equals": [a, b]}), as
// CloudFormation reads it.
func generated(t *testing.T) obj {
	t.Helper()
	b, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	return value(n.Content[0]).(obj)
}

func value(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := obj{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = value(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			l = append(l, value(c))
		}
		if fn, ok := strings.CutPrefix(n.Tag, "!"); ok && n.Tag != "!!seq" {
			return obj{"Fn::" + fn: l}
		}
		return l
	}
	switch n.Tag {
	case "!Ref":
		return obj{"Ref": n.Value}
	case "!GetAtt":
		a, b, _ := strings.Cut(n.Value, ".")
		return obj{"Fn::GetAtt": []any{a, b}}
	case "!Sub":
		return obj{"Fn::Sub": n.Value}
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return v
}

// resourcesOfType maps logical ids to the properties of a type's resources.
func resourcesOfType(tmpl obj, typ string) map[string]obj {
	out := map[string]obj{}
	for id, r := range tmpl["Resources"].(obj) {
		if r := r.(obj); r["Type"] == typ {
			p, _ := r["Properties"].(obj)
			out[id] = p
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFunctionEvents: a function's events are what the catalogue gives it:
// Api events exactly for a route, a DynamoDB event for a stream source, an
// SQS event for a queue source, the Schedule of a daily run; none
// for a function that is only invoked (decision by the state machine, admin
// through the Lambda Invoke API). The API has one event per route plus one
// ANY per resource path.
func TestFunctionEvents(t *testing.T) {
	fns := resourcesOfType(generated(t), "AWS::Serverless::Function")
	apiEvents := 0
	for _, f := range deploy.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			want := map[string]bool{}
			if _, ok := f.Route(); ok {
				want["Api"] = true
			}
			if len(f.Streams) > 0 {
				want["DynamoDB"] = true
			}
			if f.Queue != nil {
				want["SQS"] = true
			}
			if _, daily := stack.DailyRunOf(f.Name); daily {
				want["Schedule"] = true
			}
			props, ok := fns[f.LogicalID]
			if !ok {
				t.Fatalf("no %s", f.LogicalID)
			}
			got := map[string]bool{}
			events, _ := props["Events"].(obj)
			for _, e := range events {
				typ, _ := e.(obj)["Type"].(string)
				got[typ] = true
				if typ == "Api" {
					apiEvents++
				}
			}
			if !slices.Equal(sortedKeys(got), sortedKeys(want)) {
				t.Errorf("event types %v, want %v", sortedKeys(got), sortedKeys(want))
			}
		})
	}
	if want := len(deploy.Routes()) + len(stack.ResourcePaths()); apiEvents != want {
		t.Errorf("%d Api events, want %d (a route each, an ANY per path)", apiEvents, want)
	}
	admin := deploy.MustFunction(stack.AdminFunction)
	if _, hasRoute := admin.Route(); hasRoute || len(admin.Streams) > 0 || admin.Queue != nil {
		t.Errorf("the catalogue gives %s a route or an event source; it is invoked only", admin.Name)
	}
}

// TestRefusalsAreNotAlarmedOn: no alarm is on the Lambda Errors of a
// function whose errors include refusals by design (decision, admin), which
// would page on every refusal; the CDK stack alarms on their faults.
func TestRefusalsAreNotAlarmedOn(t *testing.T) {
	alarms := resourcesOfType(generated(t), "AWS::CloudWatch::Alarm")
	if len(alarms) == 0 {
		t.Fatal("no alarms")
	}
	for id, a := range alarms {
		if a["Namespace"] == "AWS/Lambda" && a["MetricName"] == "Errors" {
			t.Errorf("alarm %s is on Lambda Errors", id)
		}
	}
	var refusing []string
	for _, f := range deploy.Functions() {
		if f.RefusesWithErrors {
			refusing = append(refusing, f.Name)
		}
	}
	for _, name := range []string{stack.DecisionFunction, stack.AdminFunction} {
		if !slices.Contains(refusing, name) {
			t.Errorf("the catalogue does not say %s refuses with errors", name)
		}
	}
}

var subRef = regexp.MustCompile(`\$\{([A-Za-z0-9:]+)(\.[A-Za-z]+)?\}`)

// TestReferencesResolve: every Ref, GetAtt and ${…} of a Sub names a
// parameter, a resource or a pseudo parameter, every If a condition, and
// the files the template
// points at exist (the state machine's definition, with its placeholders;
// each function's directory).
func TestReferencesResolve(t *testing.T) {
	tmpl := generated(t)
	known := map[string]bool{"AWS::Region": true, "AWS::URLSuffix": true, "AWS::AccountId": true, "AWS::Partition": true, "AWS::NoValue": true}
	for id := range tmpl["Resources"].(obj) {
		known[id] = true
	}
	for id := range tmpl["Parameters"].(obj) {
		known[id] = true
	}
	conditions, _ := tmpl["Conditions"].(obj)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case obj:
			if r, ok := x["Ref"].(string); ok && !known[r] {
				t.Errorf("%s: Ref %s resolves to nothing", path, r)
			}
			if ga, ok := x["Fn::GetAtt"].([]any); ok && !known[ga[0].(string)] {
				t.Errorf("%s: GetAtt %v resolves to nothing", path, ga)
			}
			if args, ok := x["Fn::If"].([]any); ok {
				if name, _ := args[0].(string); len(args) != 3 || conditions[name] == nil {
					t.Errorf("%s: If %v: no condition %v, or not 3 arguments", path, args, args[0])
				}
			}
			if s, ok := x["Fn::Sub"].(string); ok {
				for _, m := range subRef.FindAllStringSubmatch(s, -1) {
					if !known[m[1]] {
						t.Errorf("%s: Sub %q: ${%s} resolves to nothing", path, s, m[1])
					}
				}
			}
			for k, y := range x {
				walk(path+"."+k, y)
			}
		case []any:
			for _, y := range x {
				walk(path, y)
			}
		}
	}
	walk("", tmpl)

	root := filepath.Join("..", "..")
	asl, err := os.ReadFile(filepath.Join(root, stack.DecisionDefinitionFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{stack.SubstDecisionFunctionArn, stack.SubstApprovalTopicArn} {
		if !strings.Contains(string(asl), "${"+k+"}") {
			t.Errorf("%s has no placeholder ${%s}", stack.DecisionDefinitionFile, k)
		}
	}
	for id, f := range resourcesOfType(tmpl, "AWS::Serverless::Function") {
		if _, err := os.Stat(filepath.Join(root, f["CodeUri"].(string), "main.go")); err != nil {
			t.Errorf("%s: CodeUri %v has no main.go", id, f["CodeUri"])
		}
	}
}

// TestURLOutputs: the description's URL, the settings area's and the
// console's are the API's, with the path of the public route that serves
// each (as the CDK stack's outputs say).
func TestURLOutputs(t *testing.T) {
	outs := generated(t)["Outputs"].(obj)
	sub := func(name string) string {
		o, _ := outs[name].(obj)
		v, _ := o["Value"].(obj)
		s, _ := v["Fn::Sub"].(string)
		return s
	}
	api := sub("ApiUrl")
	if api == "" {
		t.Fatal("no ApiUrl")
	}
	for _, c := range []struct{ output, path, function string }{
		{stack.OpenAPIURLOutput, deploy.OpenAPIPath, "api-description"},
		{stack.SettingsURLOutput, deploy.SettingsPath + "/", "web"},
		{stack.ConsoleURLOutput, deploy.ConsolePath + "/", "web"},
	} {
		if got := sub(c.output); got != api+c.path {
			t.Errorf("%s = %q, want ApiUrl %q + %s", c.output, got, api, c.path)
		}
		served := false
		for _, r := range deploy.Routes() {
			if _, ok := deploy.MatchPath(r.Path, c.path); ok && r.Method == "GET" {
				served = r.Function == c.function && r.Public
			}
		}
		if !served {
			t.Errorf("%s: GET %s is no public route of %s", c.output, c.path, c.function)
		}
	}
}

// TestRecordsBucketRules holds template.yaml to the records bucket's rules
// as infra/stack's test of the same name holds the CDK stack
// (stacktest.RecordsBreaches). The managed policies SAM adds to the
// functions' roles (basic execution, X-Ray, stream and queue execution)
// grant nothing in S3 or KMS.
func TestRecordsBucketRules(t *testing.T) {
	for _, b := range stacktest.RecordsBreaches(generated(t)) {
		t.Error(b)
	}
}

// The SAM template describes a kept stage: every stateful resource is
// retained on deletion and replacement, every table deletion-protected.
func TestStatefulResourcesAreRetained(t *testing.T) {
	for _, b := range stacktest.RetentionBreaches(generated(t), true) {
		t.Error(b)
	}
}

// The records bucket's key: only the role the template's parameter names
// (a role's name, by default the catalogue's, as the CDK app's context)
// may delete, disable, re-police or grant it.
func TestRecordsKeyBreakGlass(t *testing.T) {
	tmpl := generated(t)
	p := deploy.BreakGlassRole()
	if got := stacktest.BreakGlassRoleOf(tmpl); got != "${"+p.Parameter+"}" {
		t.Errorf("the key's break-glass role: %q, want the parameter %s", got, p.Parameter)
	}
	param, _ := tmpl["Parameters"].(obj)[p.Parameter].(obj)
	if param["Type"] != "String" || param["Default"] != p.Default || param["AllowedPattern"] != p.Pattern {
		t.Errorf("parameter %s: %v; want a string, %q by default, matching %s", p.Parameter, param, p.Default, p.Pattern)
	}
}
