package auditexport_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
)

// Every object is locked at its write to the date the law already asks,
// whatever runs after: its jurisdiction's minimum from the write while the
// relationship lasts (SA ten years, the EU five, elsewhere ten), the
// longest rule's for the account's own records, its manifests and a trail
// whose entity is gone with no believed closure. The stream and the daily
// run date alike.
func TestLockedToTheLawsMinimumAtWrite(t *testing.T) {
	ctx := context.Background()
	w, now := newWorldNow(t)
	sa, de, us := w.entity(t, "7000005510", "SA"), w.entity(t, "7000005520", "DE"), w.entity(t, "7000005530", "US")
	w.chain(t, 0, 1)
	w.chain(t, 880, 1) // an entity gone, no closure
	// The stream locks Saudi Arabia's record and the German evidence; the
	// daily run what the stream did not, and the manifest.
	body := []byte(`{"results":[],"n":"stream"}`)
	stream := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{w.auditRecord(t, sa, 1),
		evidenceRecord("2", domain.Evidence{AccountID: w.acct, CheckID: w.checkOf(t, de), Provider: "opensanctions", SHA256: sha(body), Body: body})}}
	if res, err := w.x.HandleStream(ctx, stream); err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("stream: %+v, %v", res, err)
	}
	_, manifest, err := w.x.RunAccount(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	years := func(n int) time.Time { return now.AddDate(n, 0, 0) } // from the write
	w.wantLocks(t, []lockCase{
		{"a Saudi record, from the stream", recordslayout.RecordKey(w.acct, sa, 1), years(10)},
		{"a German record", recordslayout.RecordKey(w.acct, de, 1), years(5)},
		{"German evidence, from the stream", recordslayout.EvidenceKey(w.acct, w.checkOf(t, de), sha(body)), years(5)},
		{"an American record: the default rule", recordslayout.RecordKey(w.acct, us, 1), years(10)},
		{"the account's own record", recordslayout.RecordKey(w.acct, 0, 1), years(10)},
		{"a record of an entity gone", recordslayout.RecordKey(w.acct, 880, 1), years(10)},
		{"the manifest", manifest, years(10)},
	})
}

// Once its closure record is locked and believed, a trail is locked to
// the end of its retention at once: every copy locked from its write short
// of that date (written before the end; the closure's own where the
// account keeps longer than the rule) is written again, locked to it, so
// that a renewal stopped after the closure ends nothing early.
func TestAClosureLocksItsTrailToItsEnd(t *testing.T) {
	ended := t0.Add(time.Hour) // closure's own time (w.closure)
	for i, tc := range []struct {
		name, country string
		after         int  // years kept after the end
		closureAgain  bool // the closure's own copy written again
	}{
		{"EU", "DE", 5, false},
		{"EU, the account keeping seven years", "DE", 7, true},
		{"SA", "SA", 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			w, now := newWorldNow(t)
			w.declared(t)
			e := w.entity(t, fmt.Sprintf("700000661%d", i), tc.country)
			if _, err := w.x.RunDaily(ctx); err != nil {
				t.Fatal(err)
			}
			w.backdate(t, now, ended.AddDate(-1, 0, 0)) // written a year before the end
			until := ended.AddDate(tc.after, 0, 0)
			w.closeEntity(t, e, until)
			stream := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{w.auditRecord(t, e, 2)}}
			if res, err := w.x.HandleStream(ctx, stream); err != nil || len(res.BatchItemFailures) != 0 {
				t.Fatalf("stream: %+v, %v", res, err)
			}
			closure := now.AddDate(domain.RetentionRuleFor(tc.country).Years, 0, 0)
			if tc.closureAgain {
				closure = until
			}
			w.wantLocks(t, []lockCase{
				{"its first record", recordslayout.RecordKey(w.acct, e, 1), until},
				{"its evidence", recordslayout.EvidenceKey(w.acct, w.checkOf(t, e), w.evidenceSHA(t, e)), until},
				{"its closure", recordslayout.RecordKey(w.acct, e, 2), closure},
			})
		})
	}
}

// The entity item's retain_until, which five roles write, moves nothing: a
// past date written there (and the end it claims) neither shortens the
// locks already set, nor dates a new record, nor stops a renewal. Only a
// believed closure record in the locked trail ends a relationship.
func TestAPastRetainUntilOnTheEntityMovesNothing(t *testing.T) {
	ctx := context.Background()
	w, now := newWorldNow(t)
	w.declared(t)
	e := w.entity(t, "7000007710", "SA")
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	mustRun(t, w.db.Table(w.names[schema.Entities]).Update("account_id", w.acct).Range("entity_id", e).
		Set("relationship_ended_at", domain.FormatTime(t0)).Set("retain_until", domain.FormatTime(now.AddDate(0, 0, -1))))
	first := recordslayout.RecordKey(w.acct, e, 1)
	later := now.Add(time.Minute)
	w.x.Clock = domain.FixedClock(later)
	if err := w.st.ApplyDecision(ctx, domain.Decision{Audit: domain.AuditRecord{AccountID: w.acct, ActionID: act(e, 2), Action: domain.ActionStart,
		EntityID: e, OperatorID: 3, OperatorName: "op", Reason: "r", At: later}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.x.RunAccount(ctx, w.acct); err != nil {
		t.Fatal(err)
	}
	if got := w.lockOf(t, first); !got.Equal(now.AddDate(10, 0, 0)) {
		t.Errorf("the record locked before: until %s, want %s still", got, now.AddDate(10, 0, 0))
	}
	if got := w.lockOf(t, recordslayout.RecordKey(w.acct, e, 2)); !got.Equal(later.AddDate(10, 0, 0)) {
		t.Errorf("a record locked after: until %s, want ten years from its write, %s", got, later.AddDate(10, 0, 0))
	}
	w.backdate(t, now, now.AddDate(-domain.RecordsRenewYears, 0, 0)) // the first record's version due
	w.x.Clock = domain.FixedClock(later.Add(time.Minute))
	m, _, err := w.x.RunAccount(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	renewed := false
	for _, o := range m.Renewed {
		renewed = renewed || o.Key == first
	}
	if want := later.Add(time.Minute).AddDate(10, 0, 0); !renewed || !w.lockOf(t, first).Equal(want) {
		t.Errorf("the record due: renewed %t, until %s; want renewed as the relationship lasting, to %s", renewed, w.lockOf(t, first), want)
	}
}

// The one-off run moves copies locked before per-object dates (here: no
// date, the bucket's default) onto the law's: each copy still needed
// locked as a write now would be, a trail whose retention is over and
// evidence of a check gone left as they are.
func TestExtendLocksDatesTheCopiesLockedBefore(t *testing.T) {
	ctx := context.Background()
	w, now := newWorldNow(t)
	w.declared(t)
	sa, de := w.entity(t, "7000008810", "SA"), w.entity(t, "7000008820", "DE")
	closed, over := w.entity(t, "7000008830", "DE"), w.entity(t, "7000008840", "SA")
	w.closeEntity(t, closed, now.AddDate(3, 0, 0))
	w.closeEntity(t, over, now.AddDate(0, 0, -1))
	orphan := recordslayout.EvidenceKey(w.acct, 999999, sha([]byte("gone")))
	if _, err := w.rec.Put(ctx, orphan, []byte("gone")); err != nil {
		t.Fatal(err)
	}
	_, manifest, err := w.x.RunAccount(ctx, w.acct)
	if err != nil {
		t.Fatal(err)
	}
	w.undate(t) // as the bucket's default locked them
	res, err := w.x.ExtendLocks(ctx, 0)
	if err != nil || res.Accounts < 1 || res.Expired != 3 || res.Orphans != 1 || res.Extended != 9 {
		t.Fatalf("ExtendLocks = %+v, %v; want 9 copies extended (two entities' record and evidence, a closed one's three, the account's own record of declared decisions, the manifest), the ended trail's 3 and the orphan left", res, err)
	}
	w.wantLocks(t, []lockCase{
		{"a Saudi record", recordslayout.RecordKey(w.acct, sa, 1), now.AddDate(10, 0, 0)},
		{"German evidence", recordslayout.EvidenceKey(w.acct, w.checkOf(t, de), w.evidenceSHA(t, de)), now.AddDate(5, 0, 0)},
		{"a closed trail's closure", recordslayout.RecordKey(w.acct, closed, 2), now.AddDate(3, 0, 0)},
		{"the manifest", manifest, now.AddDate(10, 0, 0)},
		{"a trail whose retention is over", recordslayout.RecordKey(w.acct, over, 1), time.Time{}},
		{"the orphan", orphan, time.Time{}},
	})
}

// A renewal stopped — the daily run still running five years on, but its
// every write refused (its role lost s3:PutObject) — leaves every copy
// with the date it was written with: none shortened, none needing the
// run to keep its law's minimum.
func TestAStoppedRenewalLeavesEveryDate(t *testing.T) {
	ctx := context.Background()
	w, now := newWorldNow(t)
	sa, de := w.entity(t, "7000006610", "SA"), w.entity(t, "7000006620", "DE")
	w.chain(t, 0, 1)
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	years := func(n int) time.Time { return now.AddDate(n, 0, 0) }
	locks := []lockCase{
		{"a Saudi record", recordslayout.RecordKey(w.acct, sa, 1), years(10)},
		{"Saudi evidence", recordslayout.EvidenceKey(w.acct, w.checkOf(t, sa), w.evidenceSHA(t, sa)), years(10)},
		{"a German record", recordslayout.RecordKey(w.acct, de, 1), years(5)},
		{"the account's own record", recordslayout.RecordKey(w.acct, 0, 1), years(10)},
	}
	w.wantLocks(t, locks)
	w.x.Records = refusingRenewals{w.rec}
	w.x.Clock = domain.FixedClock(now.AddDate(domain.RecordsRenewYears, 0, 0)) // every copy due
	if _, _, err := w.x.RunAccount(ctx, w.acct); err == nil || !strings.Contains(err.Error(), "renew locks") {
		t.Fatalf("RunAccount = %v, want the renewals failing", err)
	}
	w.wantLocks(t, locks)
}

// refusingRenewals is a records directory whose every renewal is refused.
type refusingRenewals struct{ records.Dir }

func (refusingRenewals) Renew(context.Context, string, records.Retention) (string, error) {
	return "", errors.New("AccessDenied: not authorized to perform s3:PutObject")
}

// newWorldNow is a world whose clock stands at now, to the second.
func newWorldNow(t *testing.T) (*world, time.Time) {
	t.Helper()
	w := newWorld(t)
	now := time.Now().UTC().Truncate(time.Second)
	w.x.Clock = domain.FixedClock(now)
	return w, now
}

// lockCase is a copy and the date it must be locked to (zero: none).
type lockCase struct {
	name, key string
	want      time.Time
}

// wantLocks checks that each copy is locked to its date.
func (w *world) wantLocks(t *testing.T, cases []lockCase) {
	t.Helper()
	for _, c := range cases {
		if got := w.lockOf(t, c.key); !got.Equal(c.want) {
			t.Errorf("%s (%s): locked until %s, want %s", c.name, c.key, got, c.want)
		}
	}
}

// lockOf is the date the key's copy is locked to.
func (w *world) lockOf(t *testing.T, key string) time.Time {
	t.Helper()
	obj, err := w.rec.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return obj.RetainUntil
}

// undate takes every copy's date away, as a version the bucket's default
// lock covers has none of its own.
func (w *world) undate(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(w.rec.Root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, "~retain-until") {
			return err
		}
		return os.Remove(path)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// evidenceSHA is the SHA-256 of the evidence of the entity's one check.
func (w *world) evidenceSHA(t *testing.T, entity int64) string {
	t.Helper()
	ev, err := w.st.Evidence(context.Background(), w.acct, w.checkOf(t, entity))
	if err != nil {
		t.Fatal(err)
	}
	return ev.SHA256
}

// auditRecord is the audit table's stream record of the entity's nth
// record, as Lambda delivers it.
func (w *world) auditRecord(t *testing.T, entity int64, n int) events.DynamoDBEventRecord {
	t.Helper()
	var item dynamo.Item
	err := w.db.Table(w.names[schema.Audit]).Get("account_id", w.acct).Range("action_id", dynamo.Equal, act(entity, n)).
		Consistent(true).One(context.Background(), &item)
	if err != nil {
		t.Fatal(err)
	}
	return events.DynamoDBEventRecord{EventID: act(entity, n), EventName: "INSERT",
		Change: events.DynamoDBStreamRecord{SequenceNumber: act(entity, n), NewImage: devstacktest.StreamImage(t, item)}}
}
