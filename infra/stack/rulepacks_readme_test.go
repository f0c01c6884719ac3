package stack_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the infra README's list of cdk-nag suppressions and checkov skips")

// The README's markers around the list, which rulePacksList writes.
const (
	rulePacksBegin = "<!-- rule packs: written by infra/stack's TestReadmeListsRulePacks -update-readme -->"
	rulePacksEnd   = "<!-- end of the rule packs' list -->"
)

// The infra README lists every cdk-nag suppression (infra/stack/nagrules.go)
// and every checkov skip (infra/checkov.yaml) with its reason, as the code
// has them: it cannot drift.
func TestReadmeListsRulePacks(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "infra", "README.md")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	begin, end := strings.Index(readme, rulePacksBegin), strings.Index(readme, rulePacksEnd)
	if begin < 0 || end < begin {
		t.Fatalf("infra/README.md has no %q … %q", rulePacksBegin, rulePacksEnd)
	}
	want := rulePacksList(t)
	got := readme[begin+len(rulePacksBegin) : end]
	if got == want {
		return
	}
	if *updateReadme {
		if err := os.WriteFile(file, []byte(readme[:begin+len(rulePacksBegin)]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("infra/README.md's list of suppressions and skips is not the code's: run go test ./infra/stack -run TestReadmeListsRulePacks -update-readme")
}

// rulePacksList is the two tables, between the markers.
func rulePacksList(t *testing.T) string {
	skips, err := stacktest.CheckovSkips()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("\n\n| cdk-nag rules | Resources | Why |\n|---|---|---|\n")
	for _, n := range stack.NagSuppressions() {
		rules := "`" + strings.Join(n.Rules, "`, `") + "`"
		if len(n.AppliesTo) > 0 {
			rules += " (only `" + strings.Join(n.AppliesTo, "`, `") + "`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(rules), cell(n.Where), cell(n.Reason))
	}
	b.WriteString("\n| checkov check | Resources | Why |\n|---|---|---|\n")
	for _, s := range skips {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.Check, cell("`"+strings.Join(s.Resources, "`, `")+"`"), cell(s.Reason))
	}
	return b.String() + "\n"
}

// cell escapes what would end a Markdown table's cell.
func cell(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "|", `\|`) }
