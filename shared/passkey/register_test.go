package passkey_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// Registration refuses what is not the operator's own verified passkey,
// made in their ceremony, and a name that is no name; nothing is stored
// then.
func TestFinishRegistrationRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	bob := w.operator(t, "Bob")
	for _, tc := range []struct {
		name string
		// finish finishes a registration begun for op, answered by auth.
		finish func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error
		code   string
		// adds is the passkeys the case registers itself.
		adds int
	}{
		{"UV clear", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			auth.UV = false
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"another operator's ceremony", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			_, err := w.svc.FinishRegistration(ctx, w.as(bob), bob, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"finished for another operator", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			_, err := w.svc.FinishRegistration(ctx, w.as(bob), op, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"replayed", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			resp := must(auth.Register(opts))
			if _, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", resp); err != nil {
				t.Fatal(err)
			}
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", resp)
			return err
		}, domain.ECodeForbidden, 1},
		{"wrong origin", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			auth.Origin = "https://evil.example"
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"wrong RP id", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			auth.RPID = "evil.example"
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"a login's answer", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			w.register(t, auth, op, "")
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "", w.loginResponse(t, auth))
			return err
		}, domain.ECodeBadRequest, 1},
		{"name too long", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, strings.Repeat("n", 101), must(auth.Register(opts)))
			return err
		}, domain.ECodeInvalid, 0},
		{"name with a line break", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			_, err := w.svc.FinishRegistration(ctx, w.as(op), op, "a\nb", must(auth.Register(opts)))
			return err
		}, domain.ECodeInvalid, 0},
		{"no action id", func(t *testing.T, op domain.Operator, auth *passkeytest.Authenticator, opts []byte) error {
			a := w.as(op)
			a.ActionID = " "
			_, err := w.svc.FinishRegistration(ctx, a, op, "", must(auth.Register(opts)))
			return err
		}, domain.ECodeInvalid, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := w.operator(t, tc.name)
			opts, err := w.svc.BeginRegistration(ctx, op)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := w.st.Passkeys(ctx, w.acct, op.ID)
			err = tc.finish(t, op, passkeytest.New(origin, rpID), opts)
			if domain.ErrorCode(err) != tc.code {
				t.Fatalf("FinishRegistration: %v, want %s", err, tc.code)
			}
			t.Logf("refused: %v", err)
			if after, _ := w.st.Passkeys(ctx, w.acct, op.ID); len(after) != len(before)+tc.adds {
				t.Errorf("passkeys %d → %d", len(before), len(after))
			}
		})
	}
	gone := w.operator(t, "Gone")
	w.disable(t, gone)
	gone.DisabledAt = &w.now
	if _, err := w.svc.BeginRegistration(ctx, gone); domain.ErrorCode(err) != domain.ECodeForbidden {
		t.Errorf("a disabled operator began a registration: %v", err)
	}
}
