package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// A decision recorded as several actions (a queue claim: assign, then
// start) appends them in order to its chain in its one transaction; the
// first's action id again is a duplicate that adds nothing; further
// records of another chain, or without an id of their own, are refused.
func TestDecisionAlsoRecords(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	rec := func(id string, action domain.Action, entity int64) domain.AuditRecord {
		return domain.AuditRecord{AccountID: acct, ActionID: id, Action: action, EntityID: entity, OperatorName: "op", At: t0}
	}
	for _, tc := range []struct {
		name string
		d    domain.Decision
		ok   bool
		err  error
	}{
		{"assign then start", domain.Decision{Audit: rec("a-1", domain.ActionAssign, 9), Also: []domain.AuditRecord{rec("a-1/start", domain.ActionStart, 9)}}, true, nil},
		{"the same again", domain.Decision{Audit: rec("a-1", domain.ActionAssign, 9), Also: []domain.AuditRecord{rec("a-1/start", domain.ActionStart, 9)}}, false, domain.ErrDuplicateAction},
		{"another entity's chain", domain.Decision{Audit: rec("a-2", domain.ActionAssign, 9), Also: []domain.AuditRecord{rec("a-2/start", domain.ActionStart, 10)}}, false, nil},
		{"the first's action id", domain.Decision{Audit: rec("a-3", domain.ActionAssign, 9), Also: []domain.AuditRecord{rec("a-3", domain.ActionStart, 9)}}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.ApplyDecision(ctx, tc.d)
			if (err == nil) != tc.ok || (tc.err != nil && err != tc.err) {
				t.Fatalf("ApplyDecision = %v, want ok %v (%v)", err, tc.ok, tc.err)
			}
		})
	}
	c, err := st.AuditChain(ctx, acct, 9)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range c.Records {
		ids = append(ids, l.ActionID)
	}
	slices.Sort(ids)
	if brk := c.Verify(); brk != nil || c.Head.Seq != 2 || c.Head.ActionID != "a-1/start" || !slices.Equal(ids, []string{"a-1", "a-1/start"}) {
		t.Fatalf("chain %v, head %+v, check %v; want a-1 then a-1/start, holding", ids, c.Head, brk)
	}
}
