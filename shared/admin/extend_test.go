package admin_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// audit.extend, the one-off run: a copy locked with no date of its own
// (the bucket's default, as before per-object dates) is locked to its
// law's date — the account's own records, ten years from now — and an
// unknown account is refused.
func TestAuditExtend(t *testing.T) {
	w := newWorld(t)
	rec := records.Dir{Root: t.TempDir()}
	now := time.Now().UTC().Truncate(time.Second)
	w.h.Records = rec
	w.h.Exporter = &auditexport.Exporter{Source: w.st, Records: rec, Clock: domain.FixedClock(now)}
	const actor = `"actor": "ops@example.com"`
	id := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	key := recordslayout.RecordKey(id, 0, 1)
	if _, err := rec.Put(context.Background(), key, []byte("a record locked by the bucket's default")); err != nil {
		t.Fatal(err)
	}
	out := w.must(fmt.Sprintf(`{"command": "audit.extend", %s, "account_id": %d}`, actor, id))
	if num(out["accounts"]) != 1 || num(out["extended"]) != 1 {
		t.Fatalf("audit.extend = %v, want the account's one copy extended", out)
	}
	if got, err := rec.Get(context.Background(), key); err != nil || !got.RetainUntil.Equal(now.AddDate(10, 0, 0)) {
		t.Errorf("%s: locked until %s, %v; want %s", key, got.RetainUntil, err, now.AddDate(10, 0, 0))
	}
	if _, err := w.call(fmt.Sprintf(`{"command": "audit.extend", %s, "account_id": 999999}`, actor)); failure(err) != "NotFound" {
		t.Errorf("audit.extend of an unknown account: %v", err)
	}
}
