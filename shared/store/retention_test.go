package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// What is written for an entity after its relationship ended is dated with
// the rest at once, whatever writes it: an audit record takes its chain
// head's date (or the date a legal hold keeps aside), a provider's late
// answer its entity's. A registration guard now guarding another entity's
// number is not dated.
func TestWrittenAfterTheEndIsDated(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000133")
	id := created.Entity.ID
	until := t0.AddDate(10, 0, 0)
	at := float64(until.Unix())
	item := func(table, rng string, rv any) map[string]any {
		t.Helper()
		var it map[string]any
		if err := st.DB().Table(st.Names()[table]).Get("account_id", acct).Range(rng, dynamo.Equal, rv).Consistent(true).One(ctx, &it); err != nil {
			t.Fatalf("%s %v: %v", table, rv, err)
		}
		return it
	}
	record := func(actionID string) {
		t.Helper()
		a := domain.AuditRecord{AccountID: acct, ActionID: actionID, Action: domain.ActionStart, EntityID: id, OperatorName: "op", At: t0.Add(time.Minute)}
		if err := st.ApplyDecision(ctx, domain.Decision{Audit: a}); err != nil {
			t.Fatal(err)
		}
	}
	record("before-the-end")
	if err := st.DB().Table(st.Names()[schema.Entities]).Update("account_id", acct).Range("entity_id", id).
		Set("relationship_ended_at", domain.FormatTime(t0)).Set("retain_until", domain.FormatTime(until)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	ent, err := st.Entity(ctx, acct, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExpireEntity(ctx, ent); err != nil {
		t.Fatal(err)
	}

	record("after-the-end")
	if got := item(schema.Audit, "action_id", "after-the-end")["expires_at"]; got != at {
		t.Errorf("a record appended after the end: expires_at %v, want %v", got, at)
	}
	body := []byte(`{"results":[]}`)
	ev := domain.NewEvidence("opensanctions", "POST", "https://yente.example/match/default", 200, body, t0.Add(time.Hour))
	if _, err := st.ApplyScreening(ctx, domain.ScreeningUpdate{Provider: "opensanctions", WebhookID: "late-1", Check: created.Checks[1], Entity: ent,
		Result: map[string]any{"status": "clear", "matches_count": 0}, ProviderStatus: "200", SanctionsStatus: domain.SanctionsClear,
		Evidence: ev, At: t0.Add(time.Hour), ReceiptTTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if got := item(schema.Evidence, "check_id", created.Checks[1].ID)["expires_at"]; got != at {
		t.Errorf("a provider's answer after the end: its evidence expires_at %v, want %v", got, at)
	}

	hold := domain.AuditRecord{AccountID: acct, ActionID: "hold-1", Action: domain.ActionLegalHoldSet, EntityID: id, OperatorName: "dpo", Reason: "inquiry", At: t0.Add(2 * time.Hour)}
	if err := st.PutLegalHold(ctx, domain.LegalHold{AccountID: acct, EntityID: id, Reason: "inquiry", SetBy: "dpo", ActionID: "hold-1", SetAt: t0}, hold); err != nil {
		t.Fatal(err)
	}
	if _, err := st.HoldEntity(ctx, ent, true, "hold-1"); err != nil {
		t.Fatal(err)
	}
	record("during-the-hold")
	for _, id := range []string{"hold-1", "during-the-hold"} {
		if it := item(schema.Audit, "action_id", id); it["expires_at"] != nil || it["held_expires_at"] != at {
			t.Errorf("record %s under a hold: expires_at %v, kept aside %v; want none, %v", id, it["expires_at"], it["held_expires_at"], at)
		}
	}

	// The number is guarded for another entity now: not this one's to date.
	if err := st.DB().Table(st.Names()[schema.Accounts]).Update("account_id", acct).Range("sk", "REG#7000000133#SA").
		Set("entity_id", id+1).Remove("expires_at").Remove("held_expires_at").Run(ctx); err != nil {
		t.Fatal(err)
	}
	release := domain.AuditRecord{AccountID: acct, ActionID: "release-1", Action: domain.ActionLegalHoldRelease, EntityID: id, OperatorName: "dpo", Reason: "closed", At: t0.Add(3 * time.Hour)}
	if err := st.DeleteLegalHold(ctx, acct, id, release); err != nil {
		t.Fatal(err)
	}
	if _, err := st.HoldEntity(ctx, ent, false, "release-1"); err != nil {
		t.Fatal(err)
	}
	if it := item(schema.Accounts, "sk", "REG#7000000133#SA"); it["expires_at"] != nil || it["held_expires_at"] != nil {
		t.Errorf("another entity's guard dated: %v", it)
	}
	for _, id := range []string{"during-the-hold", "release-1"} {
		if it := item(schema.Audit, "action_id", id); it["expires_at"] != at || it["held_expires_at"] != nil {
			t.Errorf("record %s after the release: expires_at %v, kept aside %v", id, it["expires_at"], it["held_expires_at"])
		}
	}
}
