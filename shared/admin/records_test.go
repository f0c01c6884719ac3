package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/verify"
)

// audit.export locks the account's records and writes its manifest;
// audit.verify then names a tail removed from DynamoDB with its head set
// to match — which the chain's own check cannot see — by the locked copy
// that contradicts it.
func TestAuditVerifyAgainstTheLockedCopies(t *testing.T) {
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	w.h.Records = rec
	w.h.Exporter = &auditexport.Exporter{Source: w.st, Records: rec, Clock: domain.FixedClock(t0)}
	const actor = `"actor": "ops@example.com"`
	id := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Ann", "permissions": ["entity.review.decide"]}`, actor, id))
	w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "name": "Acme Pay"}`, actor, id))
	auditVerify := fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d}`, actor, id)

	before := obj(w.must(auditVerify), "locked")
	if before["checked"] != true || num(before["locked"]) != 0 || num(before["not_yet_locked"]) != 3 {
		t.Fatalf("before the export: locked %v", before)
	}
	out := w.must(fmt.Sprintf(`{"command": "audit.export", %s, "account_id": %d}`, actor, id))
	if num(out["caught_up"]) != 3 || num(out["manifests"]) != 1 || !strings.HasPrefix(out["manifest_key"].(string), recordslayout.ManifestPrefix(id)) {
		t.Fatalf("audit.export = %v", out)
	}
	if got := w.must(auditVerify); got["intact"] != true || num(obj(got, "locked")["locked"]) != 3 {
		t.Fatalf("after the export: %v", got)
	}

	// The tail removed, the head set to the record before: consistent.
	ctx := context.Background()
	audit := w.db.Table(w.names[schema.Audit])
	c, err := w.st.AuditChain(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var second, third string
	for _, l := range c.Records {
		switch l.Seq {
		case 2:
			second = l.Hash
		case 3:
			third = l.ActionID
		}
	}
	if err := audit.Delete("account_id", id).Range("action_id", third).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := audit.Update("account_id", id).Range("action_id", "HEAD#0").Set("seq", 2).Set("hash", second).Run(ctx); err != nil {
		t.Fatal(err)
	}
	got := w.must(auditVerify)
	broken := obj(got, "broken")
	key := recordslayout.RecordKey(id, 0, 3)
	if got["intact"] != false || broken["action_id"] != third || broken["reason"] != verify.FindingMissing ||
		!strings.Contains(broken["message"].(string), key) {
		t.Errorf("audit.verify after the tail went = %v, want it missing, naming %s", got, key)
	}
	if n := len(obj(got, "locked")["findings"].([]any)); n != 2 {
		t.Errorf("findings %v, want the record missing and the head behind", obj(got, "locked")["findings"])
	}

	// The exports stay per account: none for another.
	if _, err := w.call(fmt.Sprintf(`{"command": "audit.export", %s, "account_id": 999999}`, actor)); failure(err) != "NotFound" {
		t.Errorf("audit.export of an unknown account: %v", err)
	}
}

// evidence.get of a check whose evidence item is gone tells expiry under
// retention from a removal the locked copy contradicts. An unsigned
// closure is believed only where the account's locked chain had declared
// decisions accepted when the closure was made: turning the setting on
// later believes no closure of before.
func TestEvidenceGoneExpiredOrRemoved(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	w.h.Records = rec
	const actor = `"actor": "ops@example.com"`
	// The account opened eleven years ago, every decision to be signed.
	opened := t0.AddDate(-11, 0, 0)
	w.h.Clock = domain.FixedClock(opened)
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	w.h.Clock = domain.FixedClock(t0)
	gone := func(number string) (entity, check int64, get, key string) {
		d, body, sha := w.screened(t, acct, number)
		chk := d.Checks[0].ID
		key = recordslayout.EvidenceKey(acct, chk, sha)
		if _, err := rec.Put(ctx, key, body); err != nil {
			t.Fatal(err)
		}
		if err := w.db.Table(w.names[schema.Evidence]).Delete("account_id", acct).Range("check_id", chk).Run(ctx); err != nil {
			t.Fatal(err)
		}
		return d.Entity.ID, chk, fmt.Sprintf(`{"command": "evidence.get", %s, "account_id": %d, "check_id": %d}`, actor, acct, chk), key
	}
	// An unsigned closure record locked in the entity's chain, made at at,
	// the relationship retained until a year ago. The entity item says
	// nothing (anyone editing it could).
	until := t0.AddDate(-1, 0, 0)
	closed := func(entity int64, at time.Time) {
		closure := auditchain.Link{AccountID: acct, EntityID: entity, ActionID: fmt.Sprintf("end-%d", entity), Action: string(domain.ActionEndRelationship),
			Before: "{}", After: `{"retain_until":"` + domain.FormatTime(until) + `"}`, At: domain.FormatTime(at), Identity: string(domain.IdentityDeclared)}
		auditchain.Next(auditchain.Head{}, &closure)
		if _, err := rec.Put(ctx, recordslayout.RecordKey(acct, entity, closure.Seq), auditchain.Canonical(closure)); err != nil {
			t.Fatal(err)
		}
	}
	lockAccountChain := func() { // as the stream does
		c, err := w.st.AuditChain(ctx, acct, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.Records {
			if _, err := rec.Put(ctx, recordslayout.RecordKey(acct, 0, l.Seq), auditchain.Canonical(l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	lockAccountChain()

	entity, _, get, key := gone("7000004560")
	if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "before its retention ended") || !strings.Contains(err.Error(), key) {
		t.Errorf("evidence removed while kept: %v, want NotFound naming %s", err, key)
	}
	closed(entity, opened.Add(24*time.Hour))
	removed := func(why, get string) {
		t.Helper()
		if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "before its retention ended") {
			t.Errorf("evidence gone, %s: %v, want it named removed", why, err)
		}
	}
	removed("an unsigned closure where signatures are required", get)
	// Declared decisions turned on now: the closure of ten years ago is
	// still not believed.
	w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "declared_decisions": true}`, actor, acct))
	lockAccountChain()
	removed("an unsigned closure made before declared decisions were turned on", get)
	// A closure made since, while the account's chain has them accepted.
	since, _, get2, _ := gone("7000004570")
	closed(since, t0.Add(time.Minute))
	if _, err := w.call(get2); failure(err) != "NotFound" || !strings.Contains(err.Error(), "expired under retention on "+until.Format("2006-01-02")) {
		t.Errorf("evidence expired: %v", err)
	}
	// Under a legal hold nothing expires: gone is removed.
	w.must(fmt.Sprintf(`{"command": "legal_hold.set", %s, "account_id": %d, "entity_id": %d, "reason": "inquiry"}`, actor, acct, since))
	if _, err := w.call(get2); failure(err) != "NotFound" || !strings.Contains(err.Error(), "while a legal hold stands") {
		t.Errorf("evidence gone under a hold: %v", err)
	}
}
