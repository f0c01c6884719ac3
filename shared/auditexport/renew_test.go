package auditexport_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
)

// The daily run renews a locked copy falling due (its lock ends within
// RecordsRenewDays) while it must be kept — its relationship lasting, a
// legal hold standing, its entity gone from DynamoDB with no closure
// record to say its retention ran out — and until its lock reaches the
// end of its retention; past that it lets the lock run out. Renewed, a
// copy is not due again.
func TestDailyRunRenewsLocksAsLongAsRetention(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	now := time.Now().UTC().Truncate(time.Second)
	w.x.Clock = domain.FixedClock(now)
	entity := func(number string, until *time.Time) int64 {
		t.Helper()
		body := []byte(`{"results":[],"n":"` + number + `"}`)
		d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
			Entity: domain.Entity{AccountID: w.acct, RegistrationNumber: number, LegalName: "Kept Co " + number, CountryCode: "SA", CountryID: 682,
				Status: domain.EntityApproved, CreatedAt: t0, UpdatedAt: t0},
			Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
				Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: sha(body), Size: len(body), Body: body, Stored: true}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if until != nil {
			mustRun(t, w.db.Table(w.names[schema.Entities]).Update("account_id", w.acct).Range("entity_id", d.Entity.ID).
				Set("relationship_ended_at", domain.FormatTime(t0)).Set("retain_until", domain.FormatTime(*until)))
		}
		w.chain(t, d.Entity.ID, 1)
		return d.Entity.ID
	}
	day := func(n int) *time.Time { t := now.AddDate(0, 0, n); return &t }
	lasting := entity("7000004440", nil)
	endsLate := entity("7000004450", day(400)) // past the lock a renewal gives
	endsSoon := entity("7000004460", day(10))  // before the lock it has ends
	held := entity("7000004470", day(10))
	if err := w.st.PutLegalHold(ctx, domain.LegalHold{AccountID: w.acct, EntityID: held, Reason: "inquiry", SetBy: "dpo", ActionID: "hold-1", SetAt: t0},
		domain.AuditRecord{AccountID: w.acct, ActionID: "hold-1", Action: domain.ActionLegalHoldSet, EntityID: held, OperatorName: "dpo", Reason: "inquiry", At: t0}); err != nil {
		t.Fatal(err)
	}
	// Two chains whose entities are gone from DynamoDB: one whose locked
	// closure record says its retention ran out yesterday (unsigned: the
	// account accepts declared decisions), one removed unseen.
	w.declared(t)
	const expired, removed = 777, 778
	w.closedChain(t, expired, *day(-1))
	w.chain(t, removed, 1)
	w.chain(t, 0, 1) // the account's own
	// Locked evidence of a check gone from DynamoDB.
	orphan := recordslayout.EvidenceKey(w.acct, 999999, sha([]byte("gone")))
	if _, err := w.rec.Put(ctx, orphan, []byte("gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	// Everything was written 40 days ago: its lock ends in 50 days.
	old := now.AddDate(0, 0, -40)
	err := filepath.WalkDir(w.rec.Root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	w.x.Clock = domain.FixedClock(now.Add(time.Minute)) // a manifest of its own
	m, _, err := w.x.RunAccount(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	renewed := map[string]bool{}
	for _, o := range m.Renewed {
		renewed[o.Key] = true
		if got, err := w.rec.Get(ctx, o.Key); err != nil || got.SHA256 != o.SHA256 {
			t.Errorf("renewed %s: sha256 %s in the manifest, %s read, %v", o.Key, o.SHA256, got.SHA256, err)
		}
	}
	prefixes := map[string]bool{}
	for key := range renewed {
		parts := strings.Split(key, "/")
		prefixes[strings.Join(parts[:min(3, len(parts)-1)], "/")] = true
	}
	for _, tc := range []struct {
		name   string
		prefix string
		want   bool
	}{
		{"the relationship lasting: its records", fmt.Sprintf("audit/%d/%d", w.acct, lasting), true},
		{"the relationship lasting: its evidence", fmt.Sprintf("evidence/%d/%d", w.acct, w.checkOf(t, lasting)), true},
		{"the account's own chain", fmt.Sprintf("audit/%d/0", w.acct), true},
		{"the manifests", fmt.Sprintf("manifests/%d", w.acct), true},
		{"ended, retention past the lock", fmt.Sprintf("audit/%d/%d", w.acct, endsLate), true},
		{"ended, retention within the lock", fmt.Sprintf("audit/%d/%d", w.acct, endsSoon), false},
		{"ended, retention within the lock: its evidence", fmt.Sprintf("evidence/%d/%d", w.acct, w.checkOf(t, endsSoon)), false},
		{"held", fmt.Sprintf("audit/%d/%d", w.acct, held), true},
		{"gone, expired by its closure record", fmt.Sprintf("audit/%d/%d", w.acct, expired), false},
		{"gone, removed unseen", fmt.Sprintf("audit/%d/%d", w.acct, removed), true},
		{"evidence of a check gone", fmt.Sprintf("evidence/%d/999999", w.acct), false},
	} {
		if prefixes[tc.prefix] != tc.want {
			t.Errorf("%s (%s): renewed %t, want %t", tc.name, tc.prefix, prefixes[tc.prefix], tc.want)
		}
	}
	// Renewed, nothing is due again.
	w.x.Clock = domain.FixedClock(now.Add(2 * time.Minute))
	again, _, err := w.x.RunAccount(ctx, w.acct)
	if err != nil || len(again.Renewed) != 0 {
		keys := []string{}
		for _, o := range again.Renewed {
			keys = append(keys, o.Key)
		}
		slices.Sort(keys)
		t.Errorf("a second run renewed %v, %v; want nothing", keys, err)
	}
}

// An unsigned closure record ends nothing where the account's own chain
// had every decision signed when it was made — whatever the account says
// since: the trail of its entity, gone from DynamoDB, is renewed as one
// removed unseen (verification names the removal). Made while the chain
// had declared decisions on, it ends the keeping.
func TestAnUnsignedClosureEndsNothingWhereSignaturesAreRequired(t *testing.T) {
	for _, tc := range []struct {
		name     string
		declared *time.Time // when the account turned declared decisions on
		renewed  bool
	}{
		{"every decision signed", nil, true},
		{"declared decisions turned on after the closure", new(t0.Add(2 * time.Hour)), true},
		{"declared decisions on before the closure", new(t0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			w := newWorld(t)
			now := time.Now().UTC().Truncate(time.Second)
			const gone = 779
			w.closedChain(t, gone, now.AddDate(0, 0, -1)) // made at t0 + 1h
			if tc.declared != nil {
				w.setDeclared(t, true, *tc.declared)
			}
			w.x.Clock = domain.FixedClock(now)
			if _, err := w.x.RunDaily(ctx); err != nil {
				t.Fatal(err)
			}
			old := now.AddDate(0, 0, -40) // the lock ends in 50 days: due
			if err := filepath.WalkDir(w.rec.Root, func(path string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				return os.Chtimes(path, old, old)
			}); err != nil {
				t.Fatal(err)
			}
			w.x.Clock = domain.FixedClock(now.Add(time.Minute))
			m, _, err := w.x.RunAccount(ctx, w.acct)
			if err != nil {
				t.Fatal(err)
			}
			closure := recordslayout.RecordKey(w.acct, gone, 2)
			if got := slices.ContainsFunc(m.Renewed, func(o recordslayout.ManifestObject) bool { return o.Key == closure }); got != tc.renewed {
				t.Errorf("closure %s renewed %t, want %t (renewed %+v)", closure, got, tc.renewed, m.Renewed)
			}
		})
	}
}

// declared makes the world's account accept declared (unsigned) decisions
// from t0 on, as admin's account.update does: the setting and its record
// in the account's own chain, which is what a closure is judged by.
func (w *world) declared(t *testing.T) {
	t.Helper()
	w.setDeclared(t, true, t0)
}

// setDeclared sets the account's declared_decisions, recorded at at.
func (w *world) setDeclared(t *testing.T, on bool, at time.Time) {
	t.Helper()
	ctx := context.Background()
	a, err := w.st.Account(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	before := domain.AccountSnapshot(a, nil)
	a.Settings.DeclaredDecisions = on
	rec := domain.AuditRecord{AccountID: w.acct, ActionID: fmt.Sprintf("declared-%t-%d", on, at.UnixNano()), Action: domain.ActionAccountUpdate,
		Actor: "admin@example.com", Before: before, After: domain.AccountSnapshot(a, nil), At: at}
	if err := w.st.UpdateAccount(ctx, a, nil, rec); err != nil {
		t.Fatal(err)
	}
}

// closedChain is a chain of one record, then an unsigned end_relationship
// whose retention ends at until.
func (w *world) closedChain(t *testing.T, entity int64, until time.Time) {
	t.Helper()
	w.chain(t, entity, 1)
	if err := w.st.ApplyDecision(context.Background(), domain.Decision{Audit: domain.AuditRecord{AccountID: w.acct, ActionID: act(entity, 2), Action: domain.ActionEndRelationship,
		EntityID: entity, OperatorID: 3, OperatorName: "op", Reason: "left", At: t0.Add(time.Hour),
		After: map[string]any{"retain_until": domain.FormatTime(until)}}}); err != nil {
		t.Fatal(err)
	}
}

func (w *world) checkOf(t *testing.T, entityID int64) int64 {
	t.Helper()
	chks, err := w.st.EntityChecks(context.Background(), w.acct, entityID, 1)
	if err != nil || len(chks) != 1 {
		t.Fatalf("checks of %d: %v, %v", entityID, chks, err)
	}
	return chks[0].ID
}
