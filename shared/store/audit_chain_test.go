package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// Tampering with the audit table directly, as someone holding its write
// rights could, is caught by the chain's check, which names the first
// broken record (or the head, or the export).
func TestAuditChainDetectsTampering(t *testing.T) {
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	audit := db.Table(names[schema.Audit])
	acct := newAccount(t, st)
	day := t0.Format(time.DateOnly)

	// exportThenRewriteTail records entity e's head as a daily export of
	// before the records bucket did (the table those are kept in), then
	// removes its last record and rewrites the head to match the one
	// before: it returns that record (the third) as stored.
	exportThenRewriteTail := func(t *testing.T, e int64) map[string]any {
		t.Helper()
		var fourth map[string]any
		if err := audit.Get("account_id", acct).Range("action_id", dynamo.Equal, act(e, 4)).Consistent(true).One(ctx, &fourth); err != nil {
			t.Fatal(err)
		}
		mustRun(t, db.Table(names[schema.AuditExports]).Put(map[string]any{"account_id": acct, "export_key": fmt.Sprintf("%020d#%s", e, day),
			"entity_id": e, "day": day, "seq": 4, "hash": fourth["hash"], "last_action_id": act(e, 4), "exported_at": fmtAt(t0)}))
		var third map[string]any
		if err := audit.Get("account_id", acct).Range("action_id", dynamo.Equal, act(e, 3)).Consistent(true).One(ctx, &third); err != nil {
			t.Fatal(err)
		}
		mustRun(t, audit.Delete("account_id", acct).Range("action_id", act(e, 4)))
		mustRun(t, audit.Update("account_id", acct).Range("action_id", fmt.Sprintf("HEAD#%d", e)).
			Set("seq", 3).Set("hash", third["hash"]).Set("last_action_id", act(e, 3)))
		return third
	}
	tests := []struct {
		name string
		// tamper spoils entity's chain of four records, <entity>-1 … -4.
		tamper func(t *testing.T, entity int64)
		// want names the record the check must fail at ("head" or
		// "export" for those); "" for a chain that holds.
		want string
	}{
		{"intact", func(*testing.T, int64) {}, ""},
		{"a field altered", func(t *testing.T, e int64) {
			mustRun(t, audit.Update("account_id", acct).Range("action_id", act(e, 2)).Set("reason", "nothing to see"))
		}, "2"},
		{"a middle record removed", func(t *testing.T, e int64) {
			mustRun(t, audit.Delete("account_id", acct).Range("action_id", act(e, 2)))
		}, "3"},
		{"the tail removed", func(t *testing.T, e int64) {
			mustRun(t, audit.Delete("account_id", acct).Range("action_id", act(e, 4)))
		}, "head"},
		{"the head forged", func(t *testing.T, e int64) {
			mustRun(t, audit.Update("account_id", acct).Range("action_id", fmt.Sprintf("HEAD#%d", e)).Set("hash", strings.Repeat("0", 64)))
		}, "head"},
		{"a timestamp moved to reorder", func(t *testing.T, e int64) {
			mustRun(t, audit.Update("account_id", acct).Range("action_id", act(e, 2)).Set("at", fmtAt(t0.Add(10*time.Minute))))
		}, "2"},
		{"a record moved out of the trail's listing", func(t *testing.T, e int64) {
			mustRun(t, audit.Update("account_id", acct).Range("action_id", act(e, 2)).Remove("entity_key"))
		}, "2"},
		{"a record reordered in the trail's listing", func(t *testing.T, e int64) {
			mustRun(t, audit.Update("account_id", acct).Range("action_id", act(e, 2)).Set("at_key", fmtAt(t0.Add(10*time.Minute))+"#"+act(e, 2)))
		}, "2"},
		{"a record added beside the chain", func(t *testing.T, e int64) {
			// As a record from before the chain looks (no chain_v), but
			// dated among the chained ones.
			at := fmtAt(t0.Add(150 * time.Second))
			mustRun(t, audit.Put(map[string]any{"account_id": acct, "action_id": act(e, 9), "entity_id": e,
				"entity_key": fmt.Sprintf("%d#%d", acct, e), "at": at, "at_key": at + "#" + act(e, 9),
				"action": "approve", "operator_id": 3, "operator_name": "op", "reason": "backdated", "before": "{}", "after": "{}"}))
		}, "9"},
		{"the tail removed and the head rewritten after an export", func(t *testing.T, e int64) {
			exportThenRewriteTail(t, e)
		}, "export"},
		{"the same, with a later export forged to match", func(t *testing.T, e int64) {
			third := exportThenRewriteTail(t, e)
			mustRun(t, db.Table(names[schema.AuditExports]).Put(map[string]any{"account_id": acct, "export_key": fmt.Sprintf("%020d#9999-12-31", e),
				"entity_id": e, "day": "9999-12-31", "seq": 3, "hash": third["hash"], "last_action_id": act(e, 3), "exported_at": fmtAt(t0)}))
		}, "export"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entity := int64(100 + i)
			for n := 1; n <= 4; n++ {
				a := domain.AuditRecord{AccountID: acct, ActionID: act(entity, n), Action: domain.ActionStart, EntityID: entity,
					OperatorID: 3, OperatorName: "op", Reason: "r", Before: map[string]any{"n": n - 1}, After: map[string]any{"n": n},
					At: t0.Add(time.Duration(n) * time.Minute)}
				if err := st.ApplyDecision(ctx, domain.Decision{Audit: a}); err != nil {
					t.Fatal(err)
				}
			}
			tt.tamper(t, entity)
			c, err := st.AuditChain(ctx, acct, entity)
			if err != nil {
				t.Fatal(err)
			}
			brk := c.Verify()
			switch want := tt.want; {
			case want == "" && brk != nil:
				t.Fatalf("check = %v, want the chain to hold", brk)
			case want == "":
				if c.Head.Seq != 4 || len(c.Head.Hash) != 64 {
					t.Fatalf("head = %+v, want seq 4 and a SHA-256", c.Head)
				}
			case brk == nil:
				t.Fatalf("the check held, want it to fail at %s", want)
			case want == "head" || want == "export":
				if brk.ActionID != "" || !strings.Contains(brk.Reason, want) {
					t.Fatalf("check = %v, want a break of the %s", brk, want)
				}
			case brk.ActionID != act(entity, int(want[0]-'0')):
				t.Fatalf("check = %v, want it to name %s", brk, act(entity, int(want[0]-'0')))
			}
		})
	}
}

// Appends to one chain at once all land, in some order, each linked to
// the one before: the losers of the head's condition read it again.
func TestAuditChainConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := domain.AuditRecord{AccountID: acct, ActionID: fmt.Sprintf("c-%d", i), Action: domain.ActionStart, EntityID: 9, OperatorName: "op", At: t0}
			errs[i] = st.ApplyDecision(ctx, domain.Decision{Audit: a})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	c, err := st.AuditChain(ctx, acct, 9)
	if err != nil {
		t.Fatal(err)
	}
	if brk := c.Verify(); brk != nil || c.Head.Seq != n || len(c.Records) != n {
		t.Fatalf("chain of %d records, head %+v, check %v; want %d records that hold", len(c.Records), c.Head, brk, n)
	}
}

// The account's own actions (no entity) form chain 0, and a repeated
// action id moves no head.
func TestAuditChainOfAccountActions(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	op, err := st.AddOperator(ctx, domain.Operator{AccountID: acct, Name: "Ann", Permissions: []string{domain.PermReviewDecide}, CreatedAt: t0},
		domain.AuditRecord{AccountID: acct, ActionID: "op-1", Action: domain.ActionOperatorCreate, OperatorName: "admin", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	op.Name = "Ann B"
	rename := domain.AuditRecord{AccountID: acct, ActionID: "op-2", Action: domain.ActionOperatorUpdate, OperatorName: "admin", At: t0.Add(time.Minute)}
	if err := st.UpdateOperator(ctx, op, rename); err != nil {
		t.Fatal(err)
	}
	op.Version++
	if err := st.UpdateOperator(ctx, op, rename); err != domain.ErrDuplicateAction {
		t.Fatalf("repeated action: %v, want ErrDuplicateAction", err)
	}
	c, err := st.AuditChain(ctx, acct, 0)
	if err != nil {
		t.Fatal(err)
	}
	if brk := c.Verify(); brk != nil || c.Head.Seq != 2 || c.Head.ActionID != "op-2" {
		t.Fatalf("account chain: head %+v, check %v; want op-1 then op-2", c.Head, brk)
	}
	if _, err := st.AuditRecord(ctx, acct, "HEAD#0"); err == nil {
		t.Error("a chain head reads as an audit record")
	}
	if all, err := st.AccountAudit(ctx, acct, 0); err != nil || len(all) != 2 {
		t.Errorf("account audit = %d records, %v; want 2 (no head)", len(all), err)
	}
}

func act(entity int64, n int) string { return fmt.Sprintf("e%d-%d", entity, n) }

// fmtAt writes a time as the store does.
func fmtAt(t time.Time) string { return domain.FormatTime(t) }

func mustRun(t *testing.T, op interface{ Run(context.Context) error }) {
	t.Helper()
	if err := op.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Two operators deciding one review at once: one wins, the other sees
// domain.ErrStale (the review's version, not the head, decides), and the
// chain holds the winner's record alone.
func TestAuditChainRacingDecisions(t *testing.T) {
	ctx := context.Background()
	w := devstacktest.NewReviews(t, t0)
	r := w.Review(t, domain.ReviewInProgress)
	baseSeq := func() int64 {
		c, err := w.St.AuditChain(ctx, w.Account, r.EntityID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Head.Seq
	}
	before := baseSeq()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := r
			level := fmt.Sprintf("by operator %d", i+1)
			next.Escalation = &level
			d := domain.Decision{Review: &next, Audit: domain.AuditRecord{AccountID: w.Account, ActionID: fmt.Sprintf("race-%d", i),
				Action: domain.ActionEscalate, OperatorID: int64(i + 1), EntityID: r.EntityID, At: t0.Add(time.Hour)}}
			errs[i] = w.St.ApplyDecision(ctx, d)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case err != domain.ErrStale:
			t.Errorf("loser: %v, want ErrStale", err)
		}
	}
	c, err := w.St.AuditChain(ctx, w.Account, r.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	if won != 1 || c.Head.Seq != before+1 || c.Verify() != nil {
		t.Fatalf("%d won, head %+v after seq %d, check %v; want one winner, one record more, a chain that holds", won, c.Head, before, c.Verify())
	}
}
