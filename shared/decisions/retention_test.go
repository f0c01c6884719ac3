package decisions_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// end_relationship records the end of the relationship and, from the
// entity's country's rule, how long its records are kept: it changes no
// status, gives the entity's evidence (written without an expiry) its
// expiry, keeps the closure in the audit record, and is refused a second
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
	expiry := func() any {
		t.Helper()
		var it map[string]any
		if err := w.st.DB().Table(w.st.Names()[schema.Evidence]).Get("account_id", w.account).Range("check_id", dynamo.Equal, chk.ID).
			Consistent(true).One(ctx, &it); err != nil {
			t.Fatal(err)
		}
		return it["expires_at"]
	}
	if e := expiry(); e != nil {
		t.Fatalf("evidence written with an expiry %v, while the relationship lasts", e)
	}

	req := w.req(domain.ActionEndRelationship, rev.ID, w.decider)
	before := time.Now()
	if _, err := w.svc.Apply(ctx, req, nil); err != nil {
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
	if e := expiry(); e != float64(got.RetainUntil.Unix()) {
		t.Errorf("the evidence expires at %v, want the end of retention %d", e, got.RetainUntil.Unix())
	}
	rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if err != nil || rec.After["retain_until"] != domain.FormatTime(*got.RetainUntil) || rec.After["retention_rule"] != "sa" || rec.Reason != "because" {
		t.Errorf("the closure record: %+v, %v", rec.After, err)
	}
	// A retry of the same action finishes what it started, changing nothing.
	if _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Errorf("the same action again: %v", err)
	}
	// A second end: refused.
	if _, err := w.svc.Validate(ctx, w.req(domain.ActionEndRelationship, rev.ID, w.decider)); domain.FailureName(err) != domain.FailIllegalTransition {
		t.Errorf("ending it again: %v, want IllegalTransition", err)
	}
}
