package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestEveryDossierWriteMovesTheRevision: the dossier's ETags are of the
// entity's dossier_rev, so every write to the entity, one of its checks or
// one of its reviews must move it — a create starts it at 1, a screening
// result, a decision changing only a review, one changing the entity, one
// adding a check and a review each add 1 — and a decision that is only an
// audit record leaves it. Dossier returns the checks and reviews at the
// revision read, and ErrStale once a write has moved it.
func TestEveryDossierWriteMovesTheRevision(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000121")
	id := created.Entity.ID
	at := t0.Add(time.Minute)

	current := func() domain.Entity {
		t.Helper()
		e, err := st.Entity(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if e := current(); e.DossierRev != 1 || created.Entity.DossierRev != 1 {
		t.Fatalf("a new entity's revision: stored %d, returned %d; want 1", e.DossierRev, created.Entity.DossierRev)
	}
	review := created.Reviews[0]
	screening := created.Checks[0]
	if screening.Type != domain.CheckOrganizationScreening {
		t.Fatalf("checks %+v: the newest should be the screening", created.Checks)
	}
	for _, w := range []struct {
		name  string
		write func(e domain.Entity) error
		moves bool
	}{
		{"a screening result", func(e domain.Entity) error {
			_, err := st.ApplyScreening(ctx, domain.ScreeningUpdate{Provider: "opensanctions", WebhookID: "rev-1", Check: screening, Entity: e,
				Result: map[string]any{"status": "clear", "matches_count": 0}, ProviderStatus: "clear",
				SanctionsStatus: domain.SanctionsClear, At: at, ReceiptTTL: time.Hour})
			return err
		}, true},
		{"a decision changing only a review", func(e domain.Entity) error {
			r := review
			r.Status, r.StartedAt, r.UpdatedAt = domain.ReviewInProgress, &at, at
			err := st.ApplyDecision(ctx, domain.Decision{Audit: domain.AuditRecord{AccountID: acct, ActionID: "rev-start", Action: domain.ActionStart, EntityID: id, ReviewID: &r.ID, At: at}, Review: &r})
			review = r
			review.Version++
			return err
		}, true},
		{"a decision changing the entity", func(e domain.Entity) error {
			next := e
			next.LegalName, next.UpdatedAt = "Renamed Co", at
			return st.ApplyDecision(ctx, domain.Decision{Audit: domain.AuditRecord{AccountID: acct, ActionID: "rev-profile", Action: domain.ActionUpdateProfile, EntityID: id, At: at}, Entity: &next})
		}, true},
		{"a decision adding a check and a review", func(e domain.Entity) error {
			ids, err := st.ReserveCheckIDs(ctx, acct, 1)
			if err != nil {
				return err
			}
			next := e
			next.ChecksCount++
			next.ReviewsCount++
			return st.ApplyDecision(ctx, domain.Decision{
				Audit:     domain.AuditRecord{AccountID: acct, ActionID: "rev-periodic", Action: domain.ActionOpenPeriodicReview, EntityID: id, At: at},
				Entity:    &next,
				NewChecks: []domain.Check{{AccountID: acct, ID: ids[0], EntityID: id, Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckPending, TriggeringReason: domain.TriggerOperatorRequested, CreatedAt: at, UpdatedAt: at}},
				NewReview: &domain.Review{AccountID: acct, EntityID: id, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at},
			})
		}, true},
		{"an audit record alone", func(e domain.Entity) error {
			return st.ApplyDecision(ctx, domain.Decision{Audit: domain.AuditRecord{AccountID: acct, ActionID: "rev-note", Action: domain.ActionStart, EntityID: id, At: at}})
		}, false},
	} {
		t.Run(w.name, func(t *testing.T) {
			before := current()
			read, err := st.Dossier(ctx, before)
			if err != nil {
				t.Fatalf("Dossier at the current revision: %v", err)
			}
			if err := w.write(before); err != nil {
				t.Fatal(err)
			}
			after := current()
			if moved := after.DossierRev != before.DossierRev; moved != w.moves || (moved && after.DossierRev != before.DossierRev+1) {
				t.Fatalf("revision %d → %d, want moved %v by 1", before.DossierRev, after.DossierRev, w.moves)
			}
			_, err = st.Dossier(ctx, before)
			if w.moves && !errors.Is(err, domain.ErrStale) {
				t.Errorf("Dossier at the older revision after the write: %v, want ErrStale", err)
			}
			if !w.moves && err != nil {
				t.Errorf("Dossier after a write that moved nothing: %v", err)
			}
			now, err := st.Dossier(ctx, after)
			if err != nil || now.Entity.DossierRev != after.DossierRev {
				t.Fatalf("Dossier at the new revision: %+v, %v", now.Entity, err)
			}
			if len(read.Checks) != before.ChecksCount || len(now.Checks) != after.ChecksCount || len(now.Reviews) != after.ReviewsCount {
				t.Errorf("dossier checks %d then %d, reviews %d; entity counts %d then %d, %d",
					len(read.Checks), len(now.Checks), len(now.Reviews), before.ChecksCount, after.ChecksCount, after.ReviewsCount)
			}
		})
	}
}

// TestDecisionDoesNotWriteOverAScreening: a decision writes the entity it
// read whole (status, counts, score), so a screening result that landed
// between its read and its write (moving neither the entity's version nor
// the review) fails it, bound to a view or not, instead of being written
// over with the values read before it.
func TestDecisionDoesNotWriteOverAScreening(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000122")
	id := created.Entity.ID
	read, err := st.Entity(ctx, acct, id)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	if _, err := st.ApplyScreening(ctx, domain.ScreeningUpdate{Provider: "opensanctions", WebhookID: "over-1", Check: created.Checks[0], Entity: read,
		Result: map[string]any{"status": "possible_match", "matches_count": 1}, ProviderStatus: "200",
		SanctionsStatus: domain.SanctionsHit, At: at, ReceiptTTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	next := read
	next.Status, next.UpdatedAt = domain.EntityApproved, at
	err = st.ApplyDecision(ctx, domain.Decision{Audit: domain.AuditRecord{AccountID: acct, ActionID: "over-approve", Action: domain.ActionApprove, EntityID: id, At: at}, Entity: &next})
	if !errors.Is(err, domain.ErrStale) {
		t.Fatalf("a decision on the entity as read before a screening: %v, want ErrStale", err)
	}
	if e, _ := st.Entity(ctx, acct, id); e.SanctionsStatus != domain.SanctionsHit {
		t.Errorf("the screening's result was written over: sanctions %s", e.SanctionsStatus)
	}
}
