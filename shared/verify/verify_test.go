package verify_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// These tests hold chains in memory and the records bucket in a directory;
// shared/auditexport's tests check the same against DynamoDB Local, as the
// exporter locks it.

var t0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

const acct = 1

// lockedChain is entity's chain of n records as DynamoDB holds it, each
// record locked in rec as the exporter locks it. With until set, the last
// is an unsigned end_relationship record whose retention ends then.
func lockedChain(t *testing.T, rec records.Dir, entity int64, n int, until time.Time) auditchain.Chain {
	t.Helper()
	c := auditchain.Chain{AccountID: acct, EntityID: entity}
	for i := 1; i <= n; i++ {
		l := auditchain.Link{AccountID: acct, EntityID: entity, ActionID: fmt.Sprintf("e%d-%d", entity, i), Action: string(domain.ActionStart),
			OperatorID: 3, OperatorName: "op", Reason: "r", Before: "{}", After: "{}", At: domain.FormatTime(t0.Add(time.Duration(i) * time.Minute))}
		if i == n && !until.IsZero() {
			l.Action, l.After = string(domain.ActionEndRelationship), fmt.Sprintf(`{"retain_until":%q}`, domain.FormatTime(until))
		}
		c.Head = auditchain.Next(c.Head, &l)
		c.Records = append(c.Records, l)
		lock(t, rec, recordslayout.RecordKey(acct, entity, l.Seq), auditchain.Canonical(l))
	}
	return c
}

// setting is declared_decisions set on or off at a time.
type setting struct {
	at time.Time
	on bool
}

// lockSettings locks the account's own chain (entity 0): its creation with
// the first setting, then an update for each later one, as admin's
// account.create and account.update record them.
func lockSettings(t *testing.T, rec records.Dir, settings ...setting) {
	t.Helper()
	var head auditchain.Head
	for i, st := range settings {
		action := domain.ActionAccountUpdate
		if i == 0 {
			action = domain.ActionAccountCreate
		}
		l := auditchain.Link{AccountID: acct, ActionID: fmt.Sprintf("settings-%d", i), Action: string(action), Actor: "admin@example.com",
			Before: "{}", After: fmt.Sprintf(`{"name":"A","declared_decisions":%t}`, st.on), At: domain.FormatTime(st.at)}
		head = auditchain.Next(head, &l)
		lock(t, rec, recordslayout.RecordKey(acct, 0, l.Seq), auditchain.Canonical(l))
	}
}

func lock(t *testing.T, rec records.Dir, key string, body []byte) {
	t.Helper()
	if _, err := rec.Put(context.Background(), key, body); err != nil {
		t.Fatal(err)
	}
}

// kinds is each finding as kind@seq, in order.
func kinds(t *testing.T, rep verify.ChainReport) []string {
	t.Helper()
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Seq))
	}
	return got
}

// The rewrites of DynamoDB that a chain's own check cannot see — it is
// consistent again afterwards — are each named by the locked copy that
// contradicts them; a record not locked yet is counted, not named.
func TestChainNamesRewritesTheChainCannotSee(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(c *auditchain.Chain)
		want   []string
		later  int // records not locked yet
	}{
		{"intact", func(*auditchain.Chain) {}, nil, 0},
		{"a record not locked yet", func(c *auditchain.Chain) {
			l := auditchain.Link{AccountID: acct, EntityID: c.EntityID, ActionID: "later", Action: string(domain.ActionStart), Before: "{}", After: "{}"}
			c.Head = auditchain.Next(c.Head, &l)
			c.Records = append(c.Records, l)
		}, nil, 1},
		{"the tail removed and the head set to match", func(c *auditchain.Chain) {
			c.Records = c.Records[:3]
			c.Head = auditchain.Head{Seq: 3, Hash: c.Records[2].Hash}
		}, []string{"missing@4", "head_behind@4"}, 0},
		{"the whole trail removed with its head", func(c *auditchain.Chain) {
			c.Records, c.Head = nil, auditchain.Head{}
		}, []string{"missing@1", "missing@2", "missing@3", "missing@4", "head_behind@4"}, 0},
		{"a record altered, the later hashes and the head recomputed", func(c *auditchain.Chain) {
			c.Records[1].Reason = "nothing to see"
			c.Head = auditchain.Head{Seq: 1, Hash: c.Records[0].Hash}
			for i := 1; i < len(c.Records); i++ {
				c.Head = auditchain.Next(c.Head, &c.Records[i])
			}
		}, []string{"differs@2", "differs@3", "differs@4"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := records.Dir{Root: t.TempDir()}
			c := lockedChain(t, rec, 100, 4, time.Time{})
			tc.tamper(&c)
			if brk := c.Verify(); brk != nil {
				t.Fatalf("the chain's own check found %v: the rewrite was meant to be consistent", brk)
			}
			rep, err := verify.Chain(context.Background(), rec, c, verify.Retention{Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(t, rep); !slices.Equal(got, tc.want) || rep.Locked != 4 || rep.LockedThrough != 4 || rep.NotYetLocked != tc.later {
				t.Errorf("findings %v, locked %d through %d, not yet %d; want %v, 4 through 4, %d", got, rep.Locked, rep.LockedThrough, rep.NotYetLocked, tc.want, tc.later)
			}
			for _, f := range rep.Findings {
				if f.Key != recordslayout.RecordKey(acct, 100, f.Seq) || f.Locked != time.Now().UTC().Format(time.DateOnly) {
					t.Errorf("finding %+v does not name its locked copy and day", f)
				}
			}
		})
	}
}

// A trail gone from DynamoDB after the retention its locked closure record
// names ran out expired: no finding, but the count and the date. Gone
// before that date, or while a legal hold stands, or with an unsigned
// closure where the account's locked chain did not accept declared
// decisions at the closure's time — turned on only later, or never — it
// was removed.
func TestChainTellsExpiryFromRemoval(t *testing.T) {
	until := t0.AddDate(10, 0, 0)
	ctx := context.Background()
	declared := []setting{{t0, true}} // from the account's creation, before the closure
	removed := []string{"missing@1", "missing@2", "missing@3", "head_behind@3"}
	notBelieved := []string{"missing@1", "missing@2", "missing@3", "closure_not_believed@3", "head_behind@3"}
	for _, tc := range []struct {
		name     string
		settings []setting
		ret      verify.Retention
		expired  int
		want     []string
	}{
		{"before its retention ran out", declared, verify.Retention{Now: until.Add(-time.Hour)}, 0, removed},
		{"after", declared, verify.Retention{Now: until}, 3, nil},
		{"after, under a legal hold", declared, verify.Retention{Now: until.AddDate(1, 0, 0), Held: true}, 0, removed},
		{"after, unsigned where signatures are required", []setting{{t0, false}}, verify.Retention{Now: until}, 0, notBelieved},
		{"after, declared decisions turned on after the closure", []setting{{t0, false}, {t0.Add(time.Hour), true}}, verify.Retention{Now: until}, 0, notBelieved},
		{"after, no settings on the record", nil, verify.Retention{Now: until}, 0, notBelieved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := records.Dir{Root: t.TempDir()}
			lockSettings(t, rec, tc.settings...)
			c := lockedChain(t, rec, 300, 3, until)
			if rep, err := verify.Chain(ctx, rec, c, tc.ret); err != nil || len(rep.Findings) != 0 || rep.Expired != 0 {
				t.Errorf("the trail whole: %+v, %v; want no finding, whatever the closure", rep, err)
			}
			c.Records, c.Head = nil, auditchain.Head{} // as TTL does
			rep, err := verify.Chain(ctx, rec, c, tc.ret)
			if got := kinds(t, rep); err != nil || !slices.Equal(got, tc.want) || rep.Expired != tc.expired {
				t.Errorf("findings %v, expired %d, %v; want %v, %d", got, rep.Expired, err, tc.want, tc.expired)
			}
			if tc.expired > 0 && (rep.ExpiredOn != until.Format(time.DateOnly) || rep.Closure != recordslayout.RecordKey(acct, 300, 3)) {
				t.Errorf("expired on %q by %q; want %s by the closure record", rep.ExpiredOn, rep.Closure, until.Format(time.DateOnly))
			}
			_, ended, err := verify.LockedClosure(ctx, rec, acct, 300, verify.Closures{})
			if err != nil || ended != (tc.want == nil || tc.ret.Held || tc.ret.Now.Before(until)) {
				t.Errorf("LockedClosure = ended %t, %v", ended, err)
			}
		})
	}
}

// An unsigned closure dated before the record it follows (to be judged by
// the settings of a time it was not written in) is not believed.
func TestABackdatedClosureExcusesNothing(t *testing.T) {
	ctx := context.Background()
	rec := records.Dir{Root: t.TempDir()}
	// Declared decisions accepted for a minute, long before the trail's
	// last record; off since.
	lockSettings(t, rec, setting{t0.Add(-time.Hour), true}, setting{t0.Add(-time.Hour + time.Minute), false})
	c := lockedChain(t, rec, 320, 2, time.Time{})
	closure := auditchain.Link{AccountID: acct, EntityID: 320, ActionID: "backdated", Action: string(domain.ActionEndRelationship), Before: "{}",
		After: fmt.Sprintf(`{"retain_until":%q}`, domain.FormatTime(t0)), At: domain.FormatTime(t0.Add(-time.Hour + 30*time.Second))}
	c.Head = auditchain.Next(c.Head, &closure)
	lock(t, rec, recordslayout.RecordKey(acct, 320, closure.Seq), auditchain.Canonical(closure))
	c.Records, c.Head = nil, auditchain.Head{}
	rep, err := verify.Chain(ctx, rec, c, verify.Retention{Now: t0.AddDate(1, 0, 0)})
	i := slices.IndexFunc(rep.Findings, func(f verify.Finding) bool { return f.Kind == verify.FindingClosureNotBelieved })
	if err != nil || rep.Expired != 0 || i < 0 || !strings.Contains(rep.Findings[i].Message, "before the record it follows") {
		t.Errorf("a backdated closure: %+v, %v; want it not believed, for its date", rep, err)
	}
}

// A closure record that is not part of the locked trail (it does not link
// to the record before it) excuses nothing: whoever can put objects in the
// bucket cannot declare a trail's retention over.
func TestAForgedClosureExcusesNothing(t *testing.T) {
	ctx := context.Background()
	rec := records.Dir{Root: t.TempDir()}
	c := lockedChain(t, rec, 310, 2, time.Time{})
	forged := auditchain.Link{Version: auditchain.Version, AccountID: acct, EntityID: 310, Seq: 3, ActionID: "forged", Action: string(domain.ActionEndRelationship),
		Before: "{}", After: fmt.Sprintf(`{"retain_until":%q}`, domain.FormatTime(t0.AddDate(-1, 0, 0))), At: domain.FormatTime(t0), PrevHash: "0000"}
	forged.Hash, _ = auditchain.Sum(forged)
	lock(t, rec, recordslayout.RecordKey(acct, 310, 3), auditchain.Canonical(forged))
	c.Records, c.Head = nil, auditchain.Head{}
	lockSettings(t, rec, setting{t0.AddDate(-1, 0, 0), true})
	declared := verify.Closures{}
	rep, err := verify.Chain(ctx, rec, c, verify.Retention{Now: t0.AddDate(5, 0, 0), Closures: declared})
	if err != nil || rep.Expired != 0 || len(rep.Findings) == 0 || rep.Findings[0].Kind != verify.FindingMissing {
		t.Errorf("with a forged closure: %+v, %v; want the removals named", rep, err)
	}
	if _, ended, err := verify.LockedClosure(ctx, rec, acct, 310, declared); err != nil || ended {
		t.Errorf("LockedClosure = ended %t, %v; want none", ended, err)
	}
}

// A closure's date is read one way only: an after that gives retain_until
// twice, or spelt in another case, dates nothing, and the trail it would
// end is kept (the same closure, read one way, ends it).
func TestAClosureReadTwoWaysDatesNothing(t *testing.T) {
	ctx := context.Background()
	past := domain.FormatTime(t0.AddDate(-1, 0, 0))
	for _, tc := range []struct {
		after string
		ended bool
	}{
		{fmt.Sprintf(`{"retain_until":%q}`, past), true},
		{fmt.Sprintf(`{"retain_until":"2099-01-01T00:00:00Z","retain_until":%q}`, past), false},
		{fmt.Sprintf(`{"Retain_Until":%q}`, past), false},
	} {
		t.Run(tc.after, func(t *testing.T) {
			rec := records.Dir{Root: t.TempDir()}
			lockSettings(t, rec, setting{t0.Add(-time.Hour), true})
			c := lockedChain(t, rec, 330, 1, time.Time{})
			closure := auditchain.Link{AccountID: acct, EntityID: 330, ActionID: "twice", Action: string(domain.ActionEndRelationship), Before: "{}",
				After: tc.after, At: domain.FormatTime(t0.Add(time.Hour)), Identity: string(domain.IdentityDeclared)}
			c.Head = auditchain.Next(c.Head, &closure)
			lock(t, rec, recordslayout.RecordKey(acct, 330, closure.Seq), auditchain.Canonical(closure))
			if _, ended, err := verify.LockedClosure(ctx, rec, acct, 330, verify.Closures{}); err != nil || ended != tc.ended {
				t.Errorf("LockedClosure = ended %t, %v; want %t", ended, err, tc.ended)
			}
		})
	}
}

// The regulator's check, from the bucket alone: the locked trail holds,
// and an object under a chain's prefix that is no record of it is named.
func TestLockedChain(t *testing.T) {
	ctx := context.Background()
	rec := records.Dir{Root: t.TempDir()}
	c := lockedChain(t, rec, 9, 5, time.Time{})
	links, brk, err := verify.LockedChain(ctx, rec, acct, 9)
	if err != nil || brk != nil || len(links) != 5 || links[4].Hash != c.Head.Hash {
		t.Fatalf("from the bucket: %d records, %v, %v; want 5 that hold, to the head", len(links), brk, err)
	}
	lock(t, rec, recordslayout.RecordKey(acct, 10, 2), []byte("evs-audit/v3\n"))
	if _, brk, _ := verify.LockedChain(ctx, rec, acct, 10); brk == nil {
		t.Error("an object that is no record verified")
	}
}

// An evidence key names its bytes' SHA-256: other bytes as the key's
// oldest version (the record's own gone once its lock ran out, a rewrite
// left standing) are named, whatever DynamoDB says.
func TestEvidenceKeyNamesItsBytes(t *testing.T) {
	ctx := context.Background()
	body := []byte(`{"results":[]}`)
	for _, tc := range []struct {
		name   string
		stored []byte
		want   []string
	}{
		{"the answer itself", body, nil},
		{"other bytes under its key", []byte(`{"results":[],"forged":true}`), []string{verify.FindingRewrittenInBucket}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := records.Dir{Root: t.TempDir()}
			e := domain.Evidence{AccountID: 1, CheckID: 1000000005, SHA256: sha(body)}
			lock(t, rec, recordslayout.EvidenceKey(e.AccountID, e.CheckID, e.SHA256), tc.stored)
			locked, findings, err := verify.Evidence(ctx, rec, e)
			var kinds []string
			for _, f := range findings {
				kinds = append(kinds, f.Kind)
			}
			if err != nil || !locked || !slices.Equal(kinds, tc.want) {
				t.Errorf("locked %t, findings %+v, %v; want %v", locked, findings, err, tc.want)
			}
		})
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
