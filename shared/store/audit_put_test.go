package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// PutAudit appends a lone record to the account's chain, once per action
// id, and the chain still verifies.
func TestPutAudit(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	rec := domain.AuditRecord{AccountID: w.acct, ActionID: "passkey-sign-count-x", Action: domain.ActionPasskeyCounterRegressed,
		OperatorID: w.active, OperatorName: "Active", At: pt0, After: map[string]any{"credential_id": "AQID", "stored_count": 7}}
	if err := w.st.PutAudit(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := w.st.PutAudit(ctx, rec); !errors.Is(err, domain.ErrDuplicateAction) {
		t.Errorf("the same action id again: %v", err)
	}
	rec2 := rec
	rec2.ActionID = "passkey-sign-count-y"
	if err := w.st.PutAudit(ctx, rec2); err != nil {
		t.Fatal(err)
	}
	got, err := w.st.AuditRecord(ctx, w.acct, rec.ActionID)
	if err != nil || got.Action != rec.Action || got.OperatorID != w.active || got.After["credential_id"] != "AQID" {
		t.Errorf("read back: %+v, %v", got, err)
	}
	chain, err := w.st.AuditChain(ctx, w.acct, 0)
	if err != nil {
		t.Fatal(err)
	}
	if brk := chain.Verify(); brk != nil || chain.Head.Seq < 2 {
		t.Errorf("account chain: head %+v, break %+v", chain.Head, brk)
	}
}
