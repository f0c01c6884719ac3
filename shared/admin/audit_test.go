package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
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
		{"an entity the account does not hold", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d, "entity_id": 5}`, actor, id), nil, "", "NotFound"},
		{"entity 0 is the account's own chain", fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d, "entity_id": 0}`, actor, id), nil, "", ""},
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

// An entity, review or endpoint the account does not hold (another
// account's, or none) is NotFound for audit.verify, audit.list and
// delivery.list, not an empty answer that reads as "nothing happened";
// the account's own chain (entity 0) and an entity of the account with
// nothing recorded still verify, and a chain or deliveries kept for what
// is gone since are still answered.
func TestFiltersOutsideTheAccount(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	const actor = `"actor": "ops@example.com"`
	holds := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Holds", "countries": ["SA"]}`), "account")["id"])
	other := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Other", "countries": ["SA"]}`), "account")["id"])
	entity := func(number string) (int64, int64) {
		t.Helper()
		d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
			Entity: domain.Entity{AccountID: holds, RegistrationNumber: number, LegalName: "Entity " + number, CountryCode: "SA", CountryID: 682,
				Status: domain.EntityDraft, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: domain.SanctionsNotRun, CreatedAt: t0, UpdatedAt: t0},
			Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: t0, UpdatedAt: t0}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return d.Entity.ID, d.Reviews[0].ID
	}
	ent, review := entity("7000000001")
	endpoint := func() int64 {
		return num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/evs", "events": ["approved"]}`, actor, holds)), "endpoint")["id"])
	}
	ep, gone := endpoint(), endpoint()
	for i, on := range []int64{ep, gone} {
		d := domain.Delivery{AccountID: holds, ID: fmt.Sprintf("dlv_%d", i), Attempt: 1, EndpointID: on, EventID: fmt.Sprintf("evt_%d", i),
			Event: domain.Event{EventType: domain.EventApproved, EntityReviewID: review, EntityID: ent, AccountID: holds}, Payload: []byte(`{}`), CreatedAt: t0}
		if _, _, err := w.st.ClaimDelivery(ctx, d, t0, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	w.must(fmt.Sprintf(`{"command": "endpoint.delete", %s, "account_id": %d, "endpoint_id": %d}`, actor, holds, gone))

	// An entity whose item is gone but whose chain is kept: a record
	// filed under it (through an operator's update), then its item deleted.
	vanished, _ := entity("7000000002")
	opID := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Ann", "permissions": []}`, actor, holds)), "operator")["id"])
	op, err := w.st.Operator(ctx, holds, opID)
	if err != nil {
		t.Fatal(err)
	}
	op.Name = "Ann B"
	if err := w.st.UpdateOperator(ctx, op, domain.AuditRecord{AccountID: holds, EntityID: vanished, ActionID: "filed-under-entity",
		Action: domain.ActionOperatorUpdate, OperatorName: "ops", At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := w.db.Table(w.names[schema.Entities]).Delete("account_id", holds).Range("entity_id", vanished).Run(ctx); err != nil {
		t.Fatal(err)
	}

	verify := func(account int64, entity string) string {
		return fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d%s}`, actor, account, entity)
	}
	list := func(account int64, fields string) string {
		return fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d%s}`, actor, account, fields)
	}
	deliveries := func(account int64, fields string) string {
		return fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d%s}`, actor, account, fields)
	}
	field := func(name string, id int64) string { return fmt.Sprintf(`, %q: %d`, name, id) }
	const future = `, "created_from": "2030-01-01T00:00:00Z"`
	tests := []struct {
		name, doc string
		// key and n: the answer lists n items under key (audit.verify:
		// records, intact); failure and says: the refusal instead.
		key           string
		n             int
		failure, says string
	}{
		// The account's creation, two endpoints', a deletion, an operator's.
		{"the account's own chain", verify(holds, ""), "records", 5, "", ""},
		{"the account's own chain as entity 0", verify(holds, field("entity_id", 0)), "records", 5, "", ""},
		{"an entity of the account with nothing recorded", verify(holds, field("entity_id", ent)), "records", 0, "", ""},
		{"an entity whose item is gone but whose chain is kept", verify(holds, field("entity_id", vanished)), "records", 1, "", ""},
		{"another account's entity", verify(other, field("entity_id", ent)), "", 0, "NotFound", fmt.Sprintf("Entity %d not found in account %d.", ent, other)},
		{"no such entity", verify(holds, field("entity_id", 987654)), "", 0, "NotFound", fmt.Sprintf("Entity 987654 not found in account %d (ids are scoped by account", holds)},

		{"an entity's empty trail", list(holds, field("entity_id", ent)), "audit", 0, "", ""},
		{"a trail kept for an entity gone", list(holds, field("entity_id", vanished)), "audit", 1, "", ""},
		{"another account's entity's trail", list(other, field("entity_id", ent)), "", 0, "NotFound", fmt.Sprintf("Entity %d not found in account %d.", ent, other)},
		{"no such entity's trail", list(holds, field("entity_id", 987654)), "", 0, "NotFound", "Entity 987654 not found"},

		{"an endpoint's deliveries", deliveries(holds, field("endpoint_id", ep)), "deliveries", 1, "", ""},
		{"an endpoint's, none in range", deliveries(holds, field("endpoint_id", ep)+future), "deliveries", 0, "", ""},
		{"a deleted endpoint's kept deliveries", deliveries(holds, field("endpoint_id", gone)), "deliveries", 1, "", ""},
		{"a review's deliveries", deliveries(holds, field("review_id", review)), "deliveries", 2, "", ""},
		{"a review's, none in range", deliveries(holds, field("review_id", review)+future), "deliveries", 0, "", ""},
		{"another account's endpoint", deliveries(other, field("endpoint_id", ep)), "", 0, "NotFound", fmt.Sprintf("Webhook endpoint %d not found in account %d.", ep, other)},
		{"another account's deleted endpoint", deliveries(other, field("endpoint_id", gone)), "", 0, "NotFound", fmt.Sprintf("Webhook endpoint %d not found", gone)},
		{"no such endpoint", deliveries(holds, field("endpoint_id", 987654)), "", 0, "NotFound", "Webhook endpoint 987654 not found"},
		{"another account's review", deliveries(other, field("review_id", review)), "", 0, "NotFound", fmt.Sprintf("Review %d not found in account %d.", review, other)},
		{"no such review", deliveries(holds, field("review_id", 987654)+future), "", 0, "NotFound", "Review 987654 not found"},
		{"a negative endpoint", deliveries(holds, field("endpoint_id", -1)), "", 0, "InvalidRequest", "endpoint_id"},
		{"a negative review", deliveries(holds, field("review_id", -1)), "", 0, "InvalidRequest", "review_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := w.call(tc.doc)
			if tc.failure != "" {
				if failure(err) != tc.failure || !strings.Contains(fmt.Sprint(err), tc.says) {
					t.Fatalf("%v, want %s saying %q", err, tc.failure, tc.says)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.key == "records" {
				if out["intact"] != true || num(out["records"]) != int64(tc.n) {
					t.Fatalf("audit.verify = intact %v, %v records; want intact, %d", out["intact"], out["records"], tc.n)
				}
				return
			}
			items, ok := out[tc.key].([]any)
			if !ok || len(items) != tc.n {
				t.Fatalf("%s = %v, want %d", tc.key, out[tc.key], tc.n)
			}
		})
	}
}
