package passkey_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// A passkey registered (discoverable, UV required, no attestation, the
// operator's passkeys excluded) signs its operator in, and each sign-in
// moves its counter on.
func TestRegisterThenLogin(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	alice := w.operator(t, "Alice")
	auth := passkeytest.New(origin, rpID)

	opts, err := w.svc.BeginRegistration(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, opts)
	sel, _ := o["authenticatorSelection"].(map[string]any)
	if sel["residentKey"] != "required" || sel["userVerification"] != "required" || o["attestation"] != "none" ||
		o["rp"].(map[string]any)["id"] != rpID || o["user"].(map[string]any)["id"] != base64.RawURLEncoding.EncodeToString(passkey.UserHandle(w.acct, alice.ID)) {
		t.Errorf("creation options: %s", opts)
	}
	resp, err := auth.Register(opts)
	if err != nil {
		t.Fatal(err)
	}
	a := w.as(alice)
	p, err := w.svc.FinishRegistration(ctx, a, alice, "  ", resp)
	if err != nil {
		t.Fatal(err)
	}
	held := auth.Credentials()
	if p.Name != "Passkey 1" || !bytes.Equal(p.ID, held[0].ID) || p.SignCount != 0 || len(p.Transports) != 2 || p.OperatorID != alice.ID {
		t.Errorf("registered %+v", p)
	}
	if rec, err := w.st.AuditRecord(ctx, w.acct, a.ActionID); err != nil || rec.Action != domain.ActionPasskeyAdd || rec.OperatorID != alice.ID {
		t.Errorf("registration's audit record: %+v, %v", rec, err)
	}

	// The same authenticator again is excluded; another is taken, named.
	opts, err = w.svc.BeginRegistration(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if ex, _ := options(t, opts)["excludeCredentials"].([]any); len(ex) != 1 {
		t.Errorf("excludeCredentials = %v", ex)
	}
	if _, err := auth.Register(opts); err == nil {
		t.Error("the authenticator registered a credential the options exclude")
	}
	if second := w.register(t, passkeytest.New(origin, rpID), alice, " Phone "); second.Name != "Phone" {
		t.Errorf("second passkey named %q", second.Name)
	}

	for want := uint32(1); want <= 2; want++ {
		opts, err := w.svc.BeginLogin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if o := options(t, opts); o["userVerification"] != "required" || o["allowCredentials"] != nil || o["rpId"] != rpID {
			t.Errorf("request options: %s", opts)
		}
		resp, err := auth.Get(opts)
		if err != nil {
			t.Fatal(err)
		}
		w.now = w.now.Add(time.Second)
		l, err := w.svc.FinishLogin(ctx, resp)
		if err != nil {
			t.Fatalf("login %d: %v", want, err)
		}
		if l.Operator.ID != alice.ID || l.Passkey.SignCount != want || l.Passkey.LastUsedAt == nil || !l.Passkey.LastUsedAt.Equal(w.now) {
			t.Errorf("login %d: %+v", want, l)
		}
		if stored, _ := w.st.Passkey(ctx, w.acct, alice.ID, p.ID); stored.SignCount != want {
			t.Errorf("login %d: stored counter %d", want, stored.SignCount)
		}
	}
}

// An authenticator that keeps no counter (a synced passkey) signs in again
// and again at 0.
func TestLoginWithoutCounter(t *testing.T) {
	w := newWorld(t)
	op := w.operator(t, "Synced")
	auth := passkeytest.New(origin, rpID)
	auth.NoCounter, auth.BE, auth.BS = true, true, true
	p := w.register(t, auth, op, "")
	if !p.BackupEligible || !p.BackupState {
		t.Errorf("registered %+v", p)
	}
	for i := range 2 {
		if l, err := w.svc.FinishLogin(context.Background(), w.loginResponse(t, auth)); err != nil || l.Passkey.SignCount != 0 {
			t.Errorf("login %d: %+v, %v", i, l, err)
		}
	}
}

// Sign-in refuses what does not prove the operator's passkey and person:
// each case gets an operator with a fresh passkey and says what is
// presented.
func TestLoginRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for _, tc := range []struct {
		name    string
		present func(t *testing.T, h holder) []byte
		code    string
		audited bool
	}{
		{"UV clear", func(t *testing.T, h holder) []byte {
			c := h.auth.Clone()
			c.UV = false
			return w.loginResponse(t, c)
		}, domain.ECodeForbidden, false},
		{"UV flag forged after signing without it", func(t *testing.T, h holder) []byte {
			c := h.auth.Clone()
			c.UV = false
			return must(passkeytest.ForgeFlags(w.loginResponse(t, c), passkeytest.FlagUV, 0))
		}, domain.ECodeForbidden, false},
		{"UP clear", func(t *testing.T, h holder) []byte {
			c := h.auth.Clone()
			c.UP = false
			return w.loginResponse(t, c)
		}, domain.ECodeForbidden, false},
		{"unknown credential", func(t *testing.T, h holder) []byte {
			// A credential made for the operator but never registered.
			stranger := passkeytest.New(origin, rpID)
			opts, err := w.svc.BeginRegistration(ctx, h.op)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := stranger.Register(opts); err != nil {
				t.Fatal(err)
			}
			return w.loginResponse(t, stranger)
		}, domain.ECodeForbidden, false},
		{"disabled operator", func(t *testing.T, h holder) []byte {
			w.disable(t, h.op)
			return w.loginResponse(t, h.auth)
		}, domain.ECodeForbidden, false},
		{"replayed response", func(t *testing.T, h holder) []byte {
			resp := w.loginResponse(t, h.auth)
			if _, err := w.svc.FinishLogin(ctx, resp); err != nil {
				t.Fatal(err)
			}
			return resp
		}, domain.ECodeForbidden, false},
		{"a decision's ceremony", func(t *testing.T, h holder) []byte {
			opts, err := w.svc.BeginSigning(ctx, h.op, passkey.PurposeDecision, digestOf("doc"))
			if err != nil {
				t.Fatal(err)
			}
			return must(h.auth.Get(opts))
		}, domain.ECodeForbidden, false},
		{"a registration's ceremony", func(t *testing.T, h holder) []byte {
			opts, err := w.svc.BeginRegistration(ctx, h.op)
			if err != nil {
				t.Fatal(err)
			}
			return must(h.auth.Get(opts))
		}, domain.ECodeForbidden, false},
		{"counter gone back", func(t *testing.T, h holder) []byte {
			if _, err := w.svc.FinishLogin(ctx, w.loginResponse(t, h.auth)); err != nil {
				t.Fatal(err)
			}
			if err := h.auth.SetCounter(h.pk.ID, 0); err != nil {
				t.Fatal(err)
			}
			return w.loginResponse(t, h.auth) // 1 again
		}, domain.ECodeForbidden, true},
		{"a cloned authenticator", func(t *testing.T, h holder) []byte {
			clone := h.auth.Clone()
			if _, err := w.svc.FinishLogin(ctx, w.loginResponse(t, h.auth)); err != nil {
				t.Fatal(err)
			}
			return w.loginResponse(t, clone)
		}, domain.ECodeForbidden, true},
		{"wrong origin", func(t *testing.T, h holder) []byte {
			c := h.auth.Clone()
			c.Origin = "http://evil.localhost:3000"
			return w.loginResponse(t, c)
		}, domain.ECodeForbidden, false},
		{"wrong RP id", func(t *testing.T, h holder) []byte {
			c := h.auth.Clone()
			c.RPID = "evil.example"
			return w.loginResponse(t, c)
		}, domain.ECodeForbidden, false},
		{"malformed", func(t *testing.T, h holder) []byte { return []byte(`{"id":"x"}`) }, domain.ECodeBadRequest, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := w.holder(t, tc.name)
			before := len(w.regressions(t))
			resp := tc.present(t, h)
			l, err := w.svc.FinishLogin(ctx, resp)
			if domain.ErrorCode(err) != tc.code {
				t.Fatalf("FinishLogin = %+v, %v; want %s", l, err, tc.code)
			}
			t.Logf("refused: %v", err)
			if got := len(w.regressions(t)) > before; got != tc.audited {
				t.Fatalf("regression audited: %v, want %v", got, tc.audited)
			}
			if rec, ok := w.regressionOf(t, h.pk); ok != tc.audited || (ok && rec.OperatorID != h.op.ID) {
				t.Errorf("regression record of this passkey: %+v (%v)", rec, ok)
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
