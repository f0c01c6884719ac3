package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// An entity's trail holds its own records, oldest first: not another
// entity's, another account's, nor the account's own actions.
func TestAuditTrail(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, other := newAccount(t, st), newAccount(t, st)
	record := func(account, entity int64, id string, at time.Duration) {
		t.Helper()
		a := domain.AuditRecord{AccountID: account, ActionID: id, Action: domain.ActionStart, EntityID: entity, OperatorName: "op", At: t0.Add(at)}
		if err := st.ApplyDecision(ctx, domain.Decision{Audit: a}); err != nil {
			t.Fatal(err)
		}
	}
	record(acct, 7, "b-later", 2*time.Minute)
	record(acct, 7, "z-earlier", time.Minute)
	record(acct, 8, "c", time.Minute)
	record(other, 7, "d", time.Minute)
	record(acct, 0, "e", time.Minute)

	trail, err := st.AuditTrail(ctx, acct, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 2 || trail[0].ActionID != "z-earlier" || trail[1].ActionID != "b-later" {
		t.Errorf("trail of entity 7 = %+v, want z-earlier then b-later", trail)
	}
	if all, err := st.AccountAudit(ctx, acct, 0); err != nil || len(all) < 4 {
		t.Errorf("account audit = %d records, %v; want the 4 written at least", len(all), err)
	}
}
