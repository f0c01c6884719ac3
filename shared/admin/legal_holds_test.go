package admin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
)

// A legal hold takes the expiry off every item of the entity (its
// webhook deliveries too) and puts an S3 legal hold on its locked copies;
// releasing it puts both back, and dates what was written meanwhile. Both
// are audited in the entity's chain, and each, run again, changes nothing
// more.
func TestLegalHolds(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	w.h.Records = rec
	const actor = `"actor": "dpo@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	d, body, sha := w.screened(t, acct, "7000001230")
	ent, chk := d.Entity.ID, d.Checks[0].ID
	key := recordslayout.EvidenceKey(acct, chk, sha)
	if _, err := rec.Put(ctx, key, body); err != nil {
		t.Fatal(err)
	}
	// Nothing is written with an expiry but the delivery's own 90 days;
	// the relationship's end dates the rest.
	delivery := dated{"expires_at", float64(t0.Add(90 * 24 * time.Hour).Unix())}
	w.wantDates(t, d, map[string]dated{"*": {}, "delivery": delivery})
	until := t0.AddDate(10, 0, 0)
	w.endRelationship(t, d, until)
	at := float64(until.Unix())
	w.wantDates(t, d, map[string]dated{"*": {"expires_at", at}, "delivery": delivery})
	doc := func(cmd, reason string) string {
		return fmt.Sprintf(`{"command": %q, %s, "account_id": %d, "entity_id": %d, "reason": %q}`, cmd, actor, acct, ent, reason)
	}
	for _, tc := range []struct {
		name, doc string
		held      bool
		already   bool
		items     int
		dates     map[string]dated
		reason    string // the reason the answer names
	}{
		// The entity, its guard, check, evidence, review and delivery; the
		// hold's own record and the head it began (the trail's first, here)
		// had no date yet: kept aside as 0.
		{"set", doc("legal_hold.set", "Court order 2026/114"), true, false, 8, map[string]dated{
			"*": {"held_expires_at", at}, "delivery": {"held_expires_at", delivery.value}, "audit": {"held_expires_at", 0}}, "Court order 2026/114"},
		// Another order while one stands: one hold an entity, the answer
		// is the hold that stands, and nothing is recorded.
		{"set again", doc("legal_hold.set", "A second order"), true, true, 0, map[string]dated{
			"*": {"held_expires_at", at}, "delivery": {"held_expires_at", delivery.value}, "audit": {"held_expires_at", 0}}, "Court order 2026/114"},
		// The same, and the release's own record (which took the held
		// head's 0 aside); then all are dated.
		{"release", doc("legal_hold.release", "Order lifted"), false, false, 9, map[string]dated{"*": {"expires_at", at}, "delivery": delivery}, "Order lifted"},
		{"release again", doc("legal_hold.release", "Order lifted"), false, true, 0, map[string]dated{"*": {"expires_at", at}, "delivery": delivery}, "Order lifted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := obj(w.must(tc.doc), "legal_hold")
			if v["held"] != tc.held || (v["already"] == true) != tc.already || num(v["items"]) != int64(tc.items) || num(v["objects"]) != 1 || v["reason"] != tc.reason {
				t.Fatalf("legal hold %v; want %d items changed, reason %q", v, tc.items, tc.reason)
			}
			w.wantDates(t, d, tc.dates)
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

// A hold placed while the relationship lasts (nothing has an expiry yet)
// still holds when the relationship then ends: the end sets the date kept
// aside, which the release puts on. Held and released while the
// relationship lasts, nothing gets an expiry.
func TestLegalHoldBeforeTheRelationshipEnds(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "dpo@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	delivery := dated{"expires_at", float64(t0.Add(90 * 24 * time.Hour).Unix())}
	doc := func(cmd string, ent int64) string {
		return fmt.Sprintf(`{"command": %q, %s, "account_id": %d, "entity_id": %d, "reason": "inquiry"}`, cmd, actor, acct, ent)
	}
	ending, _, _ := w.screened(t, acct, "7000001240")
	w.must(doc("legal_hold.set", ending.Entity.ID))
	until := t0.AddDate(10, 0, 0)
	at := float64(until.Unix())
	w.endRelationship(t, ending, until)
	w.wantDates(t, ending, map[string]dated{"*": {"held_expires_at", at}, "delivery": {"held_expires_at", delivery.value}})
	w.must(doc("legal_hold.release", ending.Entity.ID))
	w.wantDates(t, ending, map[string]dated{"*": {"expires_at", at}, "delivery": delivery})

	lasting, _, _ := w.screened(t, acct, "7000001250")
	w.must(doc("legal_hold.set", lasting.Entity.ID))
	w.must(doc("legal_hold.release", lasting.Entity.ID))
	w.wantDates(t, lasting, map[string]dated{"*": {}, "delivery": delivery})
}

// dated is the expiry an item should carry: which attribute ("" none)
// and its value.
type dated struct {
	attr  string
	value float64
}

// endRelationship records the end of the entity's relationship as the
// decision does (its item's fields) and dates its items.
func (w *world) endRelationship(t *testing.T, d domain.EntityDetail, until time.Time) {
	t.Helper()
	ctx := context.Background()
	err := w.db.Table(w.names[schema.Entities]).Update("account_id", d.Entity.AccountID).Range("entity_id", d.Entity.ID).
		Set("relationship_ended_at", domain.FormatTime(t0)).Set("retain_until", domain.FormatTime(until)).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ent, err := w.st.Entity(ctx, d.Entity.AccountID, d.Entity.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.ExpireEntity(ctx, ent); err != nil {
		t.Fatal(err)
	}
}

// wantDates reads every item of the entity (the entity, its registration
// guard, check, evidence, review, delivery, audit records and head) and
// checks the expiry each carries: want by kind, "*" for the kinds not
// named.
func (w *world) wantDates(t *testing.T, d domain.EntityDetail, want map[string]dated) {
	t.Helper()
	ctx := context.Background()
	acct, ent := d.Entity.AccountID, d.Entity.ID
	get := func(table, hash string, hv any, rng string, rv any) map[string]any {
		t.Helper()
		var it map[string]any
		if err := w.db.Table(w.names[table]).Get(hash, hv).Range(rng, dynamo.Equal, rv).Consistent(true).One(ctx, &it); err != nil {
			t.Fatalf("%s item %v: %v", table, rv, err)
		}
		return it
	}
	items := map[string][]map[string]any{
		"entity":   {get(schema.Entities, "account_id", acct, "entity_id", ent)},
		"guard":    {get(schema.Accounts, "account_id", acct, "sk", "REG#"+d.Entity.RegistrationNumber+"#SA")},
		"check":    {get(schema.Checks, "account_id", acct, "check_id", d.Checks[0].ID)},
		"evidence": {get(schema.Evidence, "account_id", acct, "check_id", d.Checks[0].ID)},
		"review":   {get(schema.Reviews, "account_id", acct, "review_id", d.Reviews[0].ID)},
		"delivery": {get(schema.WebhookDeliveries, "account_id", acct, "delivery_id", fmt.Sprintf("dlv-%d", ent))},
	}
	trail, err := w.st.AuditTrail(ctx, acct, ent)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) > 0 {
		items["audit"] = append(items["audit"], get(schema.Audit, "account_id", acct, "action_id", fmt.Sprintf("HEAD#%d", ent)))
	}
	for _, r := range trail {
		items["audit"] = append(items["audit"], get(schema.Audit, "account_id", acct, "action_id", r.ActionID))
	}
	for kind, its := range items {
		wd, ok := want[kind]
		if !ok {
			wd = want["*"]
		}
		for _, it := range its {
			for _, attr := range []string{"expires_at", "held_expires_at"} {
				got, has := it[attr]
				if has != (attr == wd.attr) || has && got != wd.value {
					t.Errorf("%s item: %s = %v (present %t); want %s = %v", kind, attr, got, has, wd.attr, wd.value)
				}
			}
		}
	}
}

// screened creates an approved Saudi entity of the account whose screening
// kept its provider's answer: the entity, the body and its SHA-256.
func (w *world) screened(t *testing.T, acct int64, number string) (domain.EntityDetail, []byte, string) {
	t.Helper()
	body := []byte(`{"results":[]}`)
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	ctx := context.Background()
	d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: acct, RegistrationNumber: number, LegalName: "Screened Co " + number, CountryCode: "SA", CountryID: 682,
			Status: domain.EntityApproved, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
			Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: sha, Size: len(body), Body: body, Stored: true}}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: t0, UpdatedAt: t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// One webhook delivery of its review.
	dv := domain.Delivery{AccountID: acct, ID: fmt.Sprintf("dlv-%d", d.Entity.ID), EndpointID: 1, EventID: "evt-" + number,
		Event: domain.Event{EventType: domain.EventAssigned, EntityReviewID: d.Reviews[0].ID, EntityID: d.Entity.ID, AccountID: acct},
		URL:   "https://example.com/hook", CreatedAt: t0}
	if _, _, err := w.st.ClaimDelivery(ctx, dv, t0, time.Minute); err != nil {
		t.Fatal(err)
	}
	return d, body, sha
}
