package admin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
)

// A legal hold takes the expiry off the entity's evidence and puts an S3
// legal hold on its locked copies; releasing it puts both back. Both are
// audited in the entity's chain, and each, run again, says it changed
// nothing more.
func TestLegalHolds(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	w.h.Records = rec
	const actor = `"actor": "dpo@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	d, body, sha := w.screened(t, acct, "7000001230")
	ent, chk := d.Entity.ID, d.Checks[0].ID
	key := auditexport.EvidenceKey(acct, chk, sha)
	if _, err := rec.Put(ctx, key, body); err != nil {
		t.Fatal(err)
	}
	evidence := func() map[string]any {
		t.Helper()
		var it map[string]any
		if err := w.db.Table(w.names[schema.Evidence]).Get("account_id", acct).Range("check_id", dynamo.Equal, chk).Consistent(true).One(ctx, &it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	// Evidence is written without an expiry; the relationship's end gives
	// it one (end_relationship), which a hold then keeps aside.
	if it := evidence(); it["expires_at"] != nil {
		t.Fatalf("evidence written with an expiry %v: nothing expires while the relationship lasts", it["expires_at"])
	}
	if err := w.st.ExpireEvidence(ctx, acct, chk, t0.AddDate(10, 0, 0)); err != nil {
		t.Fatal(err)
	}
	expires := evidence()["expires_at"]
	if expires != float64(t0.AddDate(10, 0, 0).Unix()) {
		t.Fatalf("the evidence's expiry %v after the relationship ended", expires)
	}
	doc := func(cmd, reason string) string {
		return fmt.Sprintf(`{"command": %q, %s, "account_id": %d, "entity_id": %d, "reason": %q}`, cmd, actor, acct, ent, reason)
	}
	for _, tc := range []struct {
		name, doc string
		held      bool
		already   bool
	}{
		{"set", doc("legal_hold.set", "Court order 2026/114"), true, false},
		{"set again", doc("legal_hold.set", "Court order 2026/114"), true, true},
		{"release", doc("legal_hold.release", "Order lifted"), false, false},
		{"release again", doc("legal_hold.release", "Order lifted"), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := obj(w.must(tc.doc), "legal_hold")
			if v["held"] != tc.held || (v["already"] == true) != tc.already || num(v["evidence"]) != 1 || num(v["objects"]) != 1 {
				t.Fatalf("legal hold %v", v)
			}
			it := evidence()
			if tc.held && (it["expires_at"] != nil || it["held_expires_at"] != expires) {
				t.Errorf("held evidence: expires_at %v, kept aside %v", it["expires_at"], it["held_expires_at"])
			}
			if !tc.held && (it["expires_at"] != expires || it["held_expires_at"] != nil) {
				t.Errorf("released evidence: expires_at %v (want %v), kept aside %v", it["expires_at"], expires, it["held_expires_at"])
			}
			o, err := rec.Get(ctx, key)
			if err != nil || o.LegalHold != tc.held {
				t.Errorf("locked copy's legal hold %t, %v; want %t", o.LegalHold, err, tc.held)
			}
			holds, _ := w.must(fmt.Sprintf(`{"command": "legal_hold.list", %s, "account_id": %d}`, actor, acct))["legal_holds"].([]any)
			if (len(holds) == 1) != tc.held {
				t.Errorf("legal_hold.list = %v", holds)
			}
		})
	}
	trail, err := w.st.AuditTrail(ctx, acct, ent)
	if err != nil || len(trail) != 2 || trail[0].Action != domain.ActionLegalHoldSet || trail[0].Reason != "Court order 2026/114" ||
		trail[1].Action != domain.ActionLegalHoldRelease {
		t.Errorf("the entity's trail %+v, %v; want the hold and its release, with their reasons", trail, err)
	}
	for name, tc := range map[string]struct{ doc, failure string }{
		"no reason":      {doc("legal_hold.set", ""), "InvalidRequest"},
		"another entity": {fmt.Sprintf(`{"command": "legal_hold.set", %s, "account_id": %d, "entity_id": 999, "reason": "x"}`, actor, acct), "NotFound"},
	} {
		if _, err := w.call(tc.doc); failure(err) != tc.failure {
			t.Errorf("%s: %v, want %s", name, err, tc.failure)
		}
	}
}

// A hold placed while the relationship lasts (the evidence has no expiry
// yet) still holds when the relationship then ends: the end sets the date
// kept aside, which the release puts back.
func TestLegalHoldBeforeTheRelationshipEnds(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const actor = `"actor": "dpo@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	d, _, _ := w.screened(t, acct, "7000001240")
	ent, chk := d.Entity.ID, d.Checks[0].ID
	item := func() map[string]any {
		t.Helper()
		var it map[string]any
		if err := w.db.Table(w.names[schema.Evidence]).Get("account_id", acct).Range("check_id", dynamo.Equal, chk).Consistent(true).One(ctx, &it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	doc := func(cmd string) string {
		return fmt.Sprintf(`{"command": %q, %s, "account_id": %d, "entity_id": %d, "reason": "inquiry"}`, cmd, actor, acct, ent)
	}
	w.must(doc("legal_hold.set"))
	until := t0.AddDate(10, 0, 0)
	if err := w.st.ExpireEvidence(ctx, acct, chk, until); err != nil { // the relationship ends meanwhile
		t.Fatal(err)
	}
	if it := item(); it["expires_at"] != nil || it["held_expires_at"] != float64(until.Unix()) {
		t.Fatalf("held evidence after the relationship ended: expires_at %v, kept aside %v", it["expires_at"], it["held_expires_at"])
	}
	w.must(doc("legal_hold.release"))
	if it := item(); it["expires_at"] != float64(until.Unix()) || it["held_expires_at"] != nil {
		t.Errorf("released: expires_at %v, kept aside %v", it["expires_at"], it["held_expires_at"])
	}
	// Held and released while the relationship lasts: no expiry appears.
	w.must(doc("legal_hold.set"))
	if err := w.db.Table(w.names[schema.Evidence]).Update("account_id", acct).Range("check_id", chk).Remove("expires_at").Set("held_expires_at", 0).Run(ctx); err != nil {
		t.Fatal(err)
	}
	w.must(doc("legal_hold.release"))
	if it := item(); it["expires_at"] != nil || it["held_expires_at"] != nil {
		t.Errorf("released with no expiry: expires_at %v, kept aside %v", it["expires_at"], it["held_expires_at"])
	}
}

// screened creates an approved Saudi entity of the account whose screening
// kept its provider's answer: the entity, the body and its SHA-256.
func (w *world) screened(t *testing.T, acct int64, number string) (domain.EntityDetail, []byte, string) {
	t.Helper()
	body := []byte(`{"results":[]}`)
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	d, err := w.st.CreateEntity(context.Background(), domain.EntityDetail{
		Entity: domain.Entity{AccountID: acct, RegistrationNumber: number, LegalName: "Screened Co " + number, CountryCode: "SA", CountryID: 682,
			Status: domain.EntityApproved, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
			Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: sha, Size: len(body), Body: body, Stored: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d, body, sha
}
