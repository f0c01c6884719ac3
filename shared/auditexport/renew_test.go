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

// The daily run renews a locked copy whose newest version falls due
// (RecordsRenewYears old, less RecordsRenewDays) while its record must be
// kept — its relationship lasting, a legal hold standing, its entity gone
// from DynamoDB with no believed closure to say its retention ran out,
// the account's own records and manifests — locked its jurisdiction's
// minimum from then; once a believed closure ended the relationship after
// the version's write, to the end's date; past that date, not at all.
// Renewed, a copy is not due again.
func TestDailyRunRenewsAsLongAsTheRecordIsNeeded(t *testing.T) {
	ctx := context.Background()
	w, now := newWorldNow(t)
	w.declared(t) // the closures below are unsigned
	day := func(n int) time.Time { return now.AddDate(0, 0, n) }
	lasting := w.entity(t, "7000004440", "SA")
	endsLate := w.entity(t, "7000004450", "DE")
	w.closeEntity(t, endsLate, day(400))
	endsPast := w.entity(t, "7000004460", "SA")
	w.closeEntity(t, endsPast, day(-1))
	held := w.entity(t, "7000004470", "SA")
	w.closeEntity(t, held, day(-1))
	if err := w.st.PutLegalHold(ctx, domain.LegalHold{AccountID: w.acct, EntityID: held, Reason: "inquiry", SetBy: "dpo", ActionID: "hold-1", SetAt: t0},
		domain.AuditRecord{AccountID: w.acct, ActionID: "hold-1", Action: domain.ActionLegalHoldSet, EntityID: held, OperatorName: "dpo", Reason: "inquiry", At: t0}); err != nil {
		t.Fatal(err)
	}
	// Two chains whose entities are gone from DynamoDB: one whose locked
	// closure record says its retention ran out yesterday, one removed
	// unseen.
	const expired, removed = 777, 778
	w.closedChain(t, expired, day(-1))
	w.chain(t, removed, 1)
	w.chain(t, 0, 1) // the account's own
	orphan := recordslayout.EvidenceKey(w.acct, 999999, sha([]byte("gone")))
	if _, err := w.rec.Put(ctx, orphan, []byte("gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	w.backdate(t, now, now.AddDate(-domain.RecordsRenewYears, 0, 0)) // every copy's newest version due
	later := now.Add(time.Minute)
	w.x.Clock = domain.FixedClock(later) // a manifest of its own
	m, _, err := w.x.RunAccount(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	renewed := map[string]time.Time{}
	for _, o := range m.Renewed {
		got, err := w.rec.Get(ctx, o.Key)
		if err != nil || got.SHA256 != o.SHA256 {
			t.Errorf("renewed %s: sha256 %s in the manifest, %s read, %v", o.Key, o.SHA256, got.SHA256, err)
		}
		parts := strings.Split(o.Key, "/")
		renewed[strings.Join(parts[:min(3, len(parts)-1)], "/")] = got.RetainUntil
	}
	for _, tc := range []struct {
		name   string
		prefix string
		want   time.Time // zero: not renewed
	}{
		{"the relationship lasting: its records", fmt.Sprintf("audit/%d/%d", w.acct, lasting), later.AddDate(10, 0, 0)},
		{"the relationship lasting: its evidence", fmt.Sprintf("evidence/%d/%d", w.acct, w.checkOf(t, lasting)), later.AddDate(10, 0, 0)},
		{"the account's own chain", fmt.Sprintf("audit/%d/0", w.acct), later.AddDate(10, 0, 0)},
		{"the manifests", fmt.Sprintf("manifests/%d", w.acct), later.AddDate(10, 0, 0)},
		{"ended since the write, retention ahead: to its end", fmt.Sprintf("audit/%d/%d", w.acct, endsLate), day(400)},
		{"the same: its evidence", fmt.Sprintf("evidence/%d/%d", w.acct, w.checkOf(t, endsLate)), day(400)},
		{"ended, retention past", fmt.Sprintf("audit/%d/%d", w.acct, endsPast), time.Time{}},
		{"ended, retention past: its evidence", fmt.Sprintf("evidence/%d/%d", w.acct, w.checkOf(t, endsPast)), time.Time{}},
		{"held, retention past", fmt.Sprintf("audit/%d/%d", w.acct, held), later.AddDate(10, 0, 0)},
		{"gone, expired by its closure record", fmt.Sprintf("audit/%d/%d", w.acct, expired), time.Time{}},
		{"gone, removed unseen: the longest rule", fmt.Sprintf("audit/%d/%d", w.acct, removed), later.AddDate(10, 0, 0)},
		{"evidence of a check gone", fmt.Sprintf("evidence/%d/999999", w.acct), time.Time{}},
	} {
		if got := renewed[tc.prefix]; !got.Equal(tc.want) {
			t.Errorf("%s (%s): renewed until %s, want %s", tc.name, tc.prefix, got, tc.want)
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
			w, now := newWorldNow(t)
			const gone = 779
			w.closedChain(t, gone, now.AddDate(0, 0, -1)) // made at t0 + 1h
			if tc.declared != nil {
				w.setDeclared(t, true, *tc.declared)
			}
			if _, err := w.x.RunDaily(ctx); err != nil {
				t.Fatal(err)
			}
			w.backdate(t, now, now.AddDate(-domain.RecordsRenewYears, 0, 0))
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

// entity creates an entity of the country with a screening check and its
// evidence, and a chain of one record.
func (w *world) entity(t *testing.T, number, country string) int64 {
	t.Helper()
	body := []byte(`{"results":[],"n":"` + number + `"}`)
	d, err := w.st.CreateEntity(context.Background(), domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.acct, RegistrationNumber: number, LegalName: "Kept Co " + number, CountryCode: country,
			Status: domain.EntityApproved, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
			Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: sha(body), Size: len(body), Body: body, Stored: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.chain(t, d.Entity.ID, 1)
	return d.Entity.ID
}

// closeEntity ends the entity's relationship as the decision does: an
// unsigned end_relationship record (its chain's second) keeping its
// records until until, and the entity item saying so.
func (w *world) closeEntity(t *testing.T, entity int64, until time.Time) {
	t.Helper()
	w.closure(t, entity, until)
	mustRun(t, w.db.Table(w.names[schema.Entities]).Update("account_id", w.acct).Range("entity_id", entity).
		Set("relationship_ended_at", domain.FormatTime(t0.Add(time.Hour))).Set("retain_until", domain.FormatTime(until)))
}

// backdate moves every locked copy written at written back to when, as if
// written then: its file's time, and the date records.Dir keeps beside it
// by as much.
func (w *world) backdate(t *testing.T, written, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(w.rec.Root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if !strings.HasSuffix(path, "~retain-until") {
			return os.Chtimes(path, when, when)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		until, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
		if err != nil {
			return err
		}
		return os.WriteFile(path, []byte(until.Add(when.Sub(written)).Format(time.RFC3339)+"\n"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
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
	w.closure(t, entity, until)
}

// closure appends to the entity's chain of one record an unsigned
// end_relationship at t0 + 1h, whose retention ends at until.
func (w *world) closure(t *testing.T, entity int64, until time.Time) {
	t.Helper()
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
