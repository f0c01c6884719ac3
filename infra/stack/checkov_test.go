package stack_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

// checkov, the scanner an account's security review runs, over the
// production stack's synthesized template and template.yaml: every failed
// check must be one infra/checkov.yaml skips for that resource, with its
// reason, and every skip must still be needed.
func TestCheckov(t *testing.T) {
	if _, err := stacktest.CheckovBinary(); errors.Is(err, stacktest.ErrNoCheckov) {
		t.Skip(err)
	}
	skips, err := stacktest.CheckovSkips()
	if err != nil {
		t.Fatal(err)
	}
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The production stack, its records' replica stack, and template.yaml.
	dir, synth := t.TempDir(), stacktest.Synth(t).Prod
	files := []string{filepath.Join(root, "template.yaml")}
	for name, tmpl := range map[string]map[string]any{
		stack.StackName(stack.ProdStage):               synth.JSON,
		stack.RecordsReplicaStackName(stack.ProdStage): synth.Replica.JSON,
	} {
		raw, err := json.Marshal(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".template.json")
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	failures, err := stacktest.Checkov(files...)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, f := range failures {
		skipped := false
		for _, s := range skips {
			if s.Covers(f.Check, f.Resource) {
				skipped, used[s.Check] = true, true
			}
		}
		if !skipped {
			t.Errorf("%s: %s fails %s (%s): fix it, or skip it in %s with the reason", f.File, f.Resource, f.Check, f.Name, stacktest.CheckovSkipsFile)
		}
	}
	for _, s := range skips {
		if !used[s.Check] {
			t.Errorf("%s skips %s, which no resource fails any more: remove it", stacktest.CheckovSkipsFile, s.Check)
		}
	}
}
