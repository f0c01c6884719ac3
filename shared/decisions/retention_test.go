package decisions_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// end_relationship records the end of the relationship and, from the
// entity's country's rule, how long its records are kept: it changes no
// status, gives every item of the entity (each written without an
// expiry) the end of its retention, keeps the closure in the audit record, and is refused a second
// time.
func TestEndRelationship(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	body := []byte(`{"results":[]}`)
	sum := sha256.Sum256(body)
	d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.account, RegistrationNumber: "7000077770", LegalName: "Ending Co", CountryCode: "SA", CountryID: 682,
			Status: domain.EntityApproved, RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsClear, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
			Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: hex.EncodeToString(sum[:]), Size: len(body), Body: body, Stored: true}}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewCompleted, CreatedAt: t0, UpdatedAt: t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ent, rev, chk := d.Entity, d.Reviews[0], d.Checks[0]
	// Every item of the entity, by table and key: the entity, its
	// registration guard, check, evidence, review, and (after the end)
	// its audit records and chain head.
	expiries := func() map[string]any {
		t.Helper()
		keys := []struct {
			table, rng string
			rv         any
		}{
			{schema.Entities, "entity_id", ent.ID}, {schema.Accounts, "sk", "REG#7000077770#SA"}, {schema.Checks, "check_id", chk.ID},
			{schema.Evidence, "check_id", chk.ID}, {schema.Reviews, "review_id", rev.ID}, {schema.Audit, "action_id", fmt.Sprintf("HEAD#%d", ent.ID)},
		}
		trail, err := w.st.AuditTrail(ctx, w.account, ent.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range trail {
			keys = append(keys, struct {
				table, rng string
				rv         any
			}{schema.Audit, "action_id", r.ActionID})
		}
		out := map[string]any{}
		for _, k := range keys {
			var it map[string]any
			err := w.st.DB().Table(w.st.Names()[k.table]).Get("account_id", w.account).Range(k.rng, dynamo.Equal, k.rv).Consistent(true).One(ctx, &it)
			if errors.Is(err, dynamo.ErrNotFound) && k.table == schema.Audit {
				continue // no chain yet
			} else if err != nil {
				t.Fatal(k, err)
			}
			out[fmt.Sprintf("%s %v", k.table, k.rv)] = it["expires_at"]
		}
		return out
	}
	for item, e := range expiries() {
		if e != nil {
			t.Fatalf("%s written with an expiry %v, while the relationship lasts", item, e)
		}
	}

	req := w.req(domain.ActionEndRelationship, rev.ID, w.decider)
	before := time.Now()
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	got, err := w.st.Entity(ctx, w.account, ent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.EntityApproved || got.RelationshipEndedAt == nil || got.RelationshipEndedAt.Before(before.Add(-time.Second)) ||
		got.RetainUntil == nil || !got.RetainUntil.Equal(got.RelationshipEndedAt.AddDate(10, 0, 0)) {
		t.Fatalf("entity after end_relationship: status %s, ended %v, retained until %v; want approved, now, 10 years on (SA)", got.Status, got.RelationshipEndedAt, got.RetainUntil)
	}
	items := expiries()
	if len(items) != 7 {
		t.Errorf("items %v: want the entity, guard, check, evidence, review, head and the closure record", items)
	}
	for item, e := range items {
		if e != float64(got.RetainUntil.Unix()) {
			t.Errorf("%s expires at %v, want the end of retention %d", item, e, got.RetainUntil.Unix())
		}
	}
	rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if err != nil || rec.After["retain_until"] != domain.FormatTime(*got.RetainUntil) || rec.After["retention_rule"] != "sa" || rec.Reason != "because" {
		t.Errorf("the closure record: %+v, %v", rec.After, err)
	}
	// A retry of the same action finishes what it started, changing nothing.
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Errorf("the same action again: %v", err)
	}
	// A second end: refused.
	if _, err := w.svc.Validate(ctx, w.req(domain.ActionEndRelationship, rev.ID, w.decider)); domain.FailureName(err) != domain.FailIllegalTransition {
		t.Errorf("ending it again: %v, want IllegalTransition", err)
	}
}
