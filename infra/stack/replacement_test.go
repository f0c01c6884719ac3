package stack_test

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

var recordRelease = flag.Bool("record-release", false,
	"write the production stack's template to infra/released/ as the last release's (make release-template)")

// Nothing stateful is removed or replaced since the last release: the
// production stack as synthesized now against the one kept in
// infra/released/, but for the changes the infra README lists with their
// migration.
func TestNoStatefulReplacementSinceTheRelease(t *testing.T) {
	path, err := stacktest.ReleasedTemplate()
	if err != nil {
		t.Fatal(err)
	}
	current := prod(t).JSON
	if *recordRelease {
		b, _ := json.MarshalIndent(current, "", " ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the last release's template: %v (make release-template writes it)", err)
	}
	var released map[string]any
	if err := json.Unmarshal(b, &released); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	accepted, err := stacktest.AcceptedReplacements()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stacktest.Replacements(released, current, accepted) {
		t.Errorf("%s; list it under \"Accepted replacements\" in infra/README.md with its migration, or undo it", r)
	}
}

// The guard fails on a changed table key, a removed bucket and a renamed
// queue, naming each resource and the word replacement or removal; an
// accepted change passes.
func TestReplacementGuardFails(t *testing.T) {
	released := prod(t).JSON
	var current map[string]any
	b, _ := json.Marshal(released)
	if err := json.Unmarshal(b, &current); err != nil {
		t.Fatal(err)
	}
	res := current["Resources"].(map[string]any)
	table := res["EntitiesTable"].(map[string]any)["Properties"].(map[string]any)
	table["KeySchema"] = []any{map[string]any{"AttributeName": "entity_id", "KeyType": "HASH"}}
	delete(res, "EvidenceBucket")
	got := stacktest.Replacements(released, current, nil)
	for _, want := range []string{"EntitiesTable (AWS::DynamoDB::Table): replacement — KeySchema changes", "EvidenceBucket (AWS::S3::Bucket): removal"} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		if !found {
			t.Errorf("the guard does not say %q; it says %q", want, got)
		}
	}
	if len(got) != 2 {
		t.Errorf("findings %q, want 2", got)
	}
	if got := stacktest.Replacements(released, current, map[string]bool{"EntitiesTable": true, "EvidenceBucket": true}); len(got) != 0 {
		t.Errorf("accepted changes still found: %q", got)
	}
}
