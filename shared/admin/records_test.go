package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
// retention from a removal the locked copy contradicts.
func TestEvidenceGoneExpiredOrRemoved(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	w.h.Records = rec
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	d, body, sha := w.screened(t, acct, "7000004560")
	chk := d.Checks[0].ID
	key := recordslayout.EvidenceKey(acct, chk, sha)
	if _, err := rec.Put(ctx, key, body); err != nil {
		t.Fatal(err)
	}
	if err := w.db.Table(w.names[schema.Evidence]).Delete("account_id", acct).Range("check_id", chk).Run(ctx); err != nil {
		t.Fatal(err)
	}
	get := fmt.Sprintf(`{"command": "evidence.get", %s, "account_id": %d, "check_id": %d}`, actor, acct, chk)
	if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "before its retention ended") || !strings.Contains(err.Error(), key) {
		t.Errorf("evidence removed while kept: %v, want NotFound naming %s", err, key)
	}
	// The entity's locked chain closes the relationship: retained until a
	// year ago. The entity item says nothing (anyone editing it could).
	until := t0.AddDate(-1, 0, 0)
	closure := auditchain.Link{AccountID: acct, EntityID: d.Entity.ID, ActionID: "end-1", Action: string(domain.ActionEndRelationship),
		Before: "{}", After: `{"retain_until":"` + domain.FormatTime(until) + `"}`, At: domain.FormatTime(t0.AddDate(-11, 0, 0))}
	auditchain.Next(auditchain.Head{}, &closure)
	if _, err := rec.Put(ctx, recordslayout.RecordKey(acct, d.Entity.ID, closure.Seq), auditchain.Canonical(closure)); err != nil {
		t.Fatal(err)
	}
	// Unsigned, it is believed only where the account accepts declared
	// decisions: else anyone who can put an object in the bucket could
	// close a trail.
	if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "before its retention ended") {
		t.Errorf("evidence gone, an unsigned closure where signatures are required: %v, want it named removed", err)
	}
	w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "declared_decisions": true}`, actor, acct))
	if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "expired under retention on "+until.Format("2006-01-02")) {
		t.Errorf("evidence expired: %v", err)
	}
	// Under a legal hold nothing expires: gone is removed.
	w.must(fmt.Sprintf(`{"command": "legal_hold.set", %s, "account_id": %d, "entity_id": %d, "reason": "inquiry"}`, actor, acct, d.Entity.ID))
	if _, err := w.call(get); failure(err) != "NotFound" || !strings.Contains(err.Error(), "while a legal hold stands") {
		t.Errorf("evidence gone under a hold: %v", err)
	}
}
