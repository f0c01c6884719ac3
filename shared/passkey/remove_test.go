package passkey_test

import (
	"context"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// An operator removes their own passkeys but never the last; no operator
// removes another's; the administrator revokes any, the last included.
// Each removal is on the record.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	alice, bob := w.holder(t, "Alice"), w.holder(t, "Bob")
	phone := w.register(t, passkeytest.New(origin, rpID), alice.op, "Phone")
	wrongAccount := w.as(alice.op)
	wrongAccount.AccountID++
	noAction := w.as(alice.op)
	noAction.ActionID = ""

	for _, tc := range []struct {
		name string
		a    domain.Actor
		op   domain.Operator
		id   []byte
		code string // "" for removed
		left int    // the operator's passkeys after
	}{
		{"another operator's", w.as(bob.op), alice.op, alice.pk.ID, domain.ECodeForbidden, 2},
		{"from another account", wrongAccount, alice.op, alice.pk.ID, domain.ECodeForbidden, 2},
		{"without an action id", noAction, alice.op, alice.pk.ID, domain.ECodeInvalid, 2},
		{"one not held", w.as(alice.op), alice.op, bob.pk.ID, domain.ECodeNotFound, 2},
		{"one of two", w.as(alice.op), alice.op, phone.ID, "", 1},
		{"the last", w.as(alice.op), alice.op, alice.pk.ID, domain.ECodeConflict, 1},
		{"the last, by the administrator", w.admin(), alice.op, alice.pk.ID, "", 0},
		{"one gone already, by the administrator", w.admin(), alice.op, alice.pk.ID, domain.ECodeNotFound, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := w.svc.Remove(ctx, tc.a, tc.op, tc.id)
			if domain.ErrorCode(err) != tc.code {
				t.Fatalf("Remove: %v, want %q", err, tc.code)
			}
			if left, err := w.st.Passkeys(ctx, w.acct, tc.op.ID); err != nil || len(left) != tc.left {
				t.Errorf("passkeys left: %d, %v; want %d", len(left), err, tc.left)
			}
			if tc.code != "" {
				return
			}
			rec, err := w.st.AuditRecord(ctx, w.acct, tc.a.ActionID)
			if err != nil || rec.Action != domain.ActionPasskeyRemove || rec.OperatorID != tc.a.OperatorID || rec.Actor != tc.a.Admin {
				t.Errorf("removal's audit record: %+v, %v", rec, err)
			}
		})
	}
	if _, err := w.svc.FinishLogin(ctx, w.loginResponse(t, alice.auth)); domain.ErrorCode(err) != domain.ECodeForbidden {
		t.Errorf("a revoked passkey signed in: %v", err)
	}
}
