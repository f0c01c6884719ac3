package stack_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

// The two synthesized stacks, both from the one synthesis of this binary.
func dev(t *testing.T) *stacktest.Synthesized  { t.Helper(); return stacktest.Synth(t).Dev }
func prod(t *testing.T) *stacktest.Synthesized { t.Helper(); return stacktest.Synth(t).Prod }

// both runs f on the dev and the prod stack.
func both(t *testing.T, f func(t *testing.T, s *stacktest.Synthesized)) {
	t.Helper()
	for _, s := range []*stacktest.Synthesized{dev(t), prod(t)} {
		t.Run(s.Props.Stage, func(t *testing.T) { f(t, s) })
	}
}

// ref renders a CloudFormation value found in the template (find) as a
// short string, for the checks that compare sets of them: "ref:X",
// "arn:X" (Fn::GetAtt X.Arn), "getatt:X.Attr", joins concatenated, literals
// as they are.
func ref(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64, bool:
		return fmt.Sprint(x)
	case m:
		if r, ok := x["Ref"].(string); ok {
			return "ref:" + r
		}
		if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			if ga[1] == "Arn" {
				return "arn:" + ga[0].(string)
			}
			return fmt.Sprintf("getatt:%s.%s", ga[0], ga[1])
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			var parts []string
			for _, p := range j[1].([]any) {
				parts = append(parts, ref(p))
			}
			return strings.Join(parts, j[0].(string))
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// refsIn lists every Ref and GetAtt target anywhere in a value.
func refsIn(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case m:
			if r, ok := x["Ref"].(string); ok {
				out = append(out, r)
			}
			if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
				out = append(out, ga[0].(string))
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

// strs turns a string or a list of strings into a list.
func strs(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, y := range x {
			out = append(out, ref(y))
		}
		return out
	}
	return []string{ref(v)}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func keys[V any](set map[string]V) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	a, b = sorted(a), sorted(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// diff lists what is only in got and only in want.
func diff(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var extra, missing []string
	for s := range g {
		if !w[s] {
			extra = append(extra, s)
		}
	}
	for s := range w {
		if !g[s] {
			missing = append(missing, s)
		}
	}
	return fmt.Sprintf("unexpected %v, missing %v", sorted(extra), sorted(missing))
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
