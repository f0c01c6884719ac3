package main

import (
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/verify"
)

// The end of a relationship, through the real flow: the decision dates
// every item of the entity from its country's rule, its closure record is
// locked by the streams; a legal hold takes the dates off and its release
// puts them back; then, the items removed as DynamoDB's TTL removes them,
// audit.verify with its clock past the end of retention says the trail
// expired under retention — and, before that date or under a hold, names
// each removal.
func TestRelationshipEndsAndExpires(t *testing.T) {
	dir := t.TempDir()
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond,
		ClientTimeout: 2 * time.Second, RecordsDir: dir})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))
	rec := records.Dir{Root: dir}
	d := f.screenedEntity("7000009980")
	ent, r, chk := d.Entity, d.Reviews[0], d.Checks[0]

	f.decide(domain.ActionEndRelationship, r.ID, nil)
	got, err := f.st.Entity(f.ctx, f.acct, ent.ID)
	if err != nil || got.RetainUntil == nil || got.Status != ent.Status {
		t.Fatalf("entity after end_relationship: %+v, %v", got, err)
	}
	until := *got.RetainUntil
	trail, err := f.st.AuditTrail(f.ctx, f.acct, ent.ID)
	if err != nil || len(trail) != 1 {
		t.Fatalf("trail %+v, %v; want the closure record", trail, err)
	}
	// Every item of the entity, by table and key.
	type item struct {
		table, rng string
		rv         any
	}
	items := []item{{schema.Entities, "entity_id", ent.ID}, {schema.Accounts, "sk", "REG#7000009980#SA"}, {schema.Checks, "check_id", chk.ID},
		{schema.Evidence, "check_id", chk.ID}, {schema.Reviews, "review_id", r.ID}, {schema.Audit, "action_id", trail[0].ActionID},
		{schema.Audit, "action_id", "HEAD#" + itoa(int(ent.ID))}}
	dates := func(items []item, attr string, want any) {
		t.Helper()
		for _, it := range items {
			var got map[string]any
			err := f.st.DB().Table(f.names[it.table]).Get("account_id", f.acct).Range(it.rng, dynamo.Equal, it.rv).Consistent(true).One(f.ctx, &got)
			if err != nil {
				t.Fatalf("%s %v: %v", it.table, it.rv, err)
			}
			if got[attr] != want {
				t.Errorf("%s %v: %s = %v, want %v", it.table, it.rv, attr, got[attr], want)
			}
		}
	}
	at := float64(until.Unix())
	dates(items, "expires_at", at)
	waitUntil(t, "the closure record locked by the stream", func() bool {
		_, ended, err := verify.LockedClosure(f.ctx, rec, f.acct, ent.ID, verify.Closures{}) // the fixture's account accepts declared decisions from its creation
		return err == nil && ended
	})

	var hold struct {
		Hold admin.LegalHoldView `json:"legal_hold"`
	}
	f.admin(domain.SystemClock, rec, map[string]any{"command": "legal_hold.set", "account_id": f.acct, "entity_id": ent.ID, "reason": "inquiry"}, &hold)
	// (The head the hold's record rewrote had no date left to keep aside.)
	dates(items[:len(items)-1], "held_expires_at", at)
	dates(items, "expires_at", nil)
	f.admin(domain.SystemClock, rec, map[string]any{"command": "legal_hold.release", "account_id": f.acct, "entity_id": ent.ID, "reason": "closed"}, &hold)
	all, err := f.st.AuditTrail(f.ctx, f.acct, ent.ID)
	if err != nil || len(all) != 3 {
		t.Fatalf("trail %+v, %v; want the closure, the hold and its release", all, err)
	}
	for _, a := range all[1:] {
		items = append(items, item{schema.Audit, "action_id", a.ActionID})
	}
	// Every item dated again, the hold's records and the head too.
	dates(items, "expires_at", at)
	dates(items, "held_expires_at", nil)

	// DynamoDB's TTL removes every item of the entity (DynamoDB Local runs
	// no TTL: the test does), the hold's records and the head included.
	waitUntil(t, "the hold's records locked by the stream", func() bool {
		keys, _ := rec.List(f.ctx, recordslayout.ChainPrefix(f.acct, ent.ID))
		return len(keys) == len(all)
	})
	for _, it := range items {
		if err := f.st.DB().Table(f.names[it.table]).Delete("account_id", f.acct).Range(it.rng, it.rv).Run(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	auditVerify := func(clock time.Time) admin.AuditChainView {
		t.Helper()
		var v admin.AuditChainView
		f.admin(domain.FixedClock(clock), rec, map[string]any{"command": "audit.verify", "account_id": f.acct, "entity_id": ent.ID}, &v)
		return v
	}
	v := auditVerify(until.Add(time.Hour))
	if !v.Intact || v.Locked == nil || v.Locked.Expired != len(all) || v.Locked.ExpiredOn != until.UTC().Format(time.DateOnly) ||
		len(v.Locked.Findings) != 0 || v.Locked.Message == "" {
		t.Errorf("audit.verify past the end of retention: intact %t, locked %+v; want %d records expired on %s, no finding",
			v.Intact, v.Locked, len(all), until.UTC().Format(time.DateOnly))
	}
	v = auditVerify(until.Add(-time.Hour))
	if v.Intact || v.Locked.Expired != 0 || len(v.Locked.Findings) != len(all)+1 || v.Locked.Findings[0].Kind != verify.FindingMissing {
		t.Errorf("audit.verify before the end of retention: intact %t, locked %+v; want every record missing and the head behind", v.Intact, v.Locked)
	}
}
