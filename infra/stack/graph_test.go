package stack_test

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

// Neither stack has a dependency cycle, which CloudFormation refuses at
// deployment: following every resource's Refs, GetAtts, ${…} of a Sub and
// DependsOn from resource to resource never comes back. The admin
// function's environment names the API's stage (SETTINGS_BASE_URL on the
// dev stack, which gives it no value), which is only safe because no route
// reaches the admin function.
func TestNoDependencyCycle(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		graph := dependencies(s.JSON)
		if cycle := findCycle(graph); cycle != nil {
			t.Errorf("dependency cycle: %s", strings.Join(cycle, " -> "))
		}
		admin := adminSpec(t).LogicalID
		stageID := onlyID(t, s.Template, "AWS::ApiGateway::Stage")
		if names := slices.Contains(graph[admin], stageID); names != (s.Props.Settings["SettingsBaseUrl"] == "") {
			t.Errorf("%s names the stage %s: %v; want it to exactly when SettingsBaseUrl is not given", admin, stageID, names)
		}
	})
}

var subTarget = regexp.MustCompile(`\$\{([A-Za-z0-9]+)(\.[A-Za-z0-9.]+)?\}`)

// dependencies maps each resource to the resources it names, sorted.
func dependencies(tmpl map[string]any) map[string][]string {
	res := tmpl["Resources"].(map[string]any)
	out := map[string][]string{}
	for id, r := range res {
		r := r.(map[string]any)
		targets := refsIn(r["Properties"])
		targets = append(targets, subTargets(r["Properties"])...)
		targets = append(targets, strs(r["DependsOn"])...)
		seen := map[string]bool{}
		for _, target := range targets {
			if _, ok := res[target]; ok && !seen[target] {
				seen[target] = true
				out[id] = append(out[id], target)
			}
		}
		sort.Strings(out[id])
	}
	return out
}

// subTargets lists the ${X} and ${X.Attr} of every Fn::Sub in a value.
func subTargets(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case m:
			if sub, ok := x["Fn::Sub"]; ok {
				text, _ := sub.(string)
				if l, ok := sub.([]any); ok && len(l) > 0 {
					text, _ = l[0].(string)
				}
				for _, match := range subTarget.FindAllStringSubmatch(text, -1) {
					out = append(out, match[1])
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// findCycle returns a cycle of the graph (its first node again at its
// end), or nil.
func findCycle(graph map[string][]string) []string {
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = onPath
		path = append(path, n)
		for _, next := range graph[n] {
			switch state[next] {
			case onPath:
				i := slices.Index(path, next)
				return append(slices.Clone(path[i:]), next)
			case unvisited:
				if c := visit(next); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	for _, n := range keys(graph) {
		if state[n] == unvisited {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

// findCycle finds what it must.
func TestFindCycle(t *testing.T) {
	if c := findCycle(map[string][]string{"A": {"B"}, "B": {"C"}, "C": {"A"}, "D": {"A"}}); len(c) != 4 || c[0] != c[3] {
		t.Errorf("cycle %v, want A, B, C in a ring", c)
	}
	if c := findCycle(map[string][]string{"A": {"B", "C"}, "B": {"C"}, "C": nil}); c != nil {
		t.Errorf("cycle %v in a DAG", c)
	}
}
