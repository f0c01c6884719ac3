package main

// The parity test holds template.yaml (SAM) and the CDK stack to one
// another: the same functions (runtime, architecture, handler, memory,
// timeout, environment variable names, code), the same tables (keys,
// indexes, stream, TTL), the same secrets and the same routes. Adding a
// function, a table or a route to one and not the other fails here.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
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

// norm renders a value so that "5" and 5 compare equal (YAML scalars are strings).
func norm(v any) string { return fmt.Sprint(v) }

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

	// Secrets.
	if a, b := keys(resourcesOfType(cdk, "AWS::SecretsManager::Secret")), keys(resourcesOfType(sam, "AWS::SecretsManager::Secret")); !reflect.DeepEqual(a, b) {
		t.Errorf("secrets: CDK %v, SAM %v", a, b)
	}

	// Routes: method and path to function.
	if n := len(samRoutes(sam)); n < len(deploy.Functions())-1 {
		t.Errorf("only %d routes found in template.yaml", n)
	}
	if len(cdkFns) != len(deploy.Functions()) {
		t.Errorf("%d functions, catalogue has %d", len(cdkFns), len(deploy.Functions()))
	}
	if a, b := cdkRoutes(t, cdk), samRoutes(sam); !reflect.DeepEqual(a, b) {
		t.Errorf("routes differ:\n CDK %v\n SAM %v", a, b)
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
