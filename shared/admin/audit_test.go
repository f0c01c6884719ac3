package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/schema"
)

// audit.verify recomputes a chain: the account's own (entity 0) holds
// after a few commands, and an item altered in the table breaks it at
// that record.
func TestAuditVerify(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	id := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Ann", "permissions": ["entity.review.decide"]}`, actor, id))
	w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "name": "Acme Pay"}`, actor, id))
	trail, _ := w.must(fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d}`, actor, id))["audit"].([]any)
	if len(trail) != 3 {
		t.Fatalf("audit has %d records, want 3", len(trail))
	}
	// The operator's creation: the middle record (newest first).
	middle, _ := trail[1].(map[string]any)["action_id"].(string)

	tests := []struct {
		name   string
		doc    string
		tamper func(t *testing.T)
		// want is "" for a chain that holds, else the action id the
		// check must name.
		want    string
		failure string
	}{
		{"the account's chain holds", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d}`, actor, id), nil, "", ""},
		{"an entity with no record holds, empty", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d, "entity_id": 5}`, actor, id), nil, "", ""},
		{"an altered record breaks it", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d}`, actor, id), func(t *testing.T) {
			err := w.db.Table(w.names[schema.Audit]).Update("account_id", id).Range("action_id", middle).
				Set("operator_name", "someone else").Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
		}, middle, ""},
		{"a negative entity", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d, "entity_id": -1}`, actor, id), nil, "", "InvalidRequest"},
		{"an unknown account", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": 999999}`, actor), nil, "", "NotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tamper != nil {
				tt.tamper(t)
			}
			out, err := w.call(tt.doc)
			if tt.failure != "" || err != nil {
				if failure(err) != tt.failure {
					t.Fatalf("audit.verify: %v, want %q", err, tt.failure)
				}
				return
			}
			broken := obj(out, "broken")
			switch {
			case tt.want == "" && (out["intact"] != true || broken != nil):
				t.Fatalf("audit.verify = %v, want intact", out)
			case tt.want != "" && (out["intact"] != false || broken["action_id"] != tt.want || !strings.Contains(broken["message"].(string), tt.want)):
				t.Fatalf("audit.verify = %v, want broken at %s", out, tt.want)
			}
			if h := obj(out, "head"); tt.want == "" && num(h["seq"]) != num(out["records"]) {
				t.Fatalf("head %v after %v records", h, out["records"])
			}
		})
	}
}
