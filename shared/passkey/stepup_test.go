package passkey_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// stepUpResponse begins a step-up for h's operator and answers it with
// h's authenticator.
func (w *world) stepUpResponse(t *testing.T, h holder) []byte {
	t.Helper()
	opts, err := w.svc.BeginStepUp(context.Background(), h.op)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.auth.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// An operator adds a passkey on another device after a step-up by one of
// their own: the step-up's options list only their passkeys and ask for
// user verification; the new passkey is stored, the step-up's counter
// recorded.
func TestAddAPasskeyAfterAStepUp(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	alice := w.holder(t, "Alice")
	opts, err := w.svc.BeginStepUp(ctx, alice.op)
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, opts)
	allowed, _ := o["allowCredentials"].([]any)
	if o["userVerification"] != "required" || len(allowed) != 1 {
		t.Errorf("step-up options: %v", o)
	}
	resp, err := alice.auth.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	creation, err := w.svc.BeginAddition(ctx, alice.op, resp)
	if err != nil {
		t.Fatal(err)
	}
	phone := passkeytest.New(origin, rpID)
	p, err := w.svc.FinishAddition(ctx, w.as(alice.op), alice.op, "Phone", must(phone.Register(creation)))
	if err != nil || p.Name != "Phone" {
		t.Fatalf("FinishAddition = %+v, %v", p, err)
	}
	used, err := w.st.Passkey(ctx, w.acct, alice.op.ID, alice.pk.ID)
	if keys, _ := w.st.Passkeys(ctx, w.acct, alice.op.ID); len(keys) != 2 || err != nil || used.SignCount != 1 {
		t.Errorf("after the addition: %d passkeys, the step-up's counter %d (%v)", len(keys), used.SignCount, err)
	}
}

// Every step-up that is not a fresh, user-verified assertion by one of
// the operator's own passkeys, in a ceremony begun for them, is refused
// and begins nothing; and a registration is finished only for the purpose
// it was begun for: an enrolment's is no addition, a step-up's no
// enrolment.
func TestStepUpRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	bob := w.holder(t, "Bob")
	for _, tc := range []struct {
		name string
		// run presents to h's operator what the case presents.
		run  func(t *testing.T, h holder) error
		code string
		// adds is the passkeys the case adds itself.
		adds int
	}{
		{"no step-up at all", func(t *testing.T, h holder) error {
			_, err := w.svc.BeginAddition(ctx, h.op, []byte(`{}`))
			return err
		}, domain.ECodeBadRequest, 0},
		{"a step-up used twice", func(t *testing.T, h holder) error {
			resp := w.stepUpResponse(t, h)
			if _, err := w.svc.BeginAddition(ctx, h.op, resp); err != nil {
				t.Fatal(err)
			}
			_, err := w.svc.BeginAddition(ctx, h.op, resp)
			return err
		}, domain.ECodeForbidden, 0},
		{"without user verification", func(t *testing.T, h holder) error {
			h.auth.UV = false
			defer func() { h.auth.UV = true }()
			_, err := w.svc.BeginAddition(ctx, h.op, w.stepUpResponse(t, h))
			return err
		}, domain.ECodeForbidden, 0},
		{"another operator's step-up", func(t *testing.T, h holder) error {
			_, err := w.svc.BeginAddition(ctx, h.op, w.stepUpResponse(t, bob))
			return err
		}, domain.ECodeForbidden, 0},
		{"another operator's passkey in the operator's step-up", func(t *testing.T, h holder) error {
			opts, err := w.svc.BeginStepUp(ctx, h.op)
			if err != nil {
				t.Fatal(err)
			}
			var o map[string]any
			json.Unmarshal(opts, &o)
			delete(o, "allowCredentials") // Bob's authenticator answers whatever it is offered
			raw, _ := json.Marshal(o)
			_, err = w.svc.BeginAddition(ctx, h.op, must(bob.auth.Get(raw)))
			return err
		}, domain.ECodeForbidden, 0},
		{"a sign-in's assertion", func(t *testing.T, h holder) error {
			_, err := w.svc.BeginAddition(ctx, h.op, w.loginResponse(t, h.auth))
			return err
		}, domain.ECodeForbidden, 0},
		{"a step-up past its lifetime", func(t *testing.T, h holder) error {
			resp := w.stepUpResponse(t, h)
			w.now = w.now.Add(passkey.CeremonyTTL)
			_, err := w.svc.BeginAddition(ctx, h.op, resp)
			return err
		}, domain.ECodeForbidden, 0},
		{"a counter that went back", func(t *testing.T, h holder) error {
			w.stepUpThenAdd(t, h)
			if err := h.auth.SetCounter(h.pk.ID, 0); err != nil {
				t.Fatal(err)
			}
			_, err := w.svc.BeginAddition(ctx, h.op, w.stepUpResponse(t, h))
			return err
		}, domain.ECodeForbidden, 1},
		{"an enrolment's registration finished as an addition", func(t *testing.T, h holder) error {
			opts, err := w.svc.BeginRegistration(ctx, h.op)
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.svc.FinishAddition(ctx, w.as(h.op), h.op, "", must(passkeytest.New(origin, rpID).Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
		{"an addition finished as an enrolment's registration", func(t *testing.T, h holder) error {
			opts, err := w.svc.BeginAddition(ctx, h.op, w.stepUpResponse(t, h))
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.svc.FinishRegistration(ctx, w.as(h.op), h.op, "", must(passkeytest.New(origin, rpID).Register(opts)))
			return err
		}, domain.ECodeForbidden, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := w.holder(t, tc.name)
			before, _ := w.st.Passkeys(ctx, w.acct, h.op.ID)
			err := tc.run(t, h)
			if domain.ErrorCode(err) != tc.code {
				t.Fatalf("%v, want %s", err, tc.code)
			}
			t.Logf("refused: %v", err)
			if after, _ := w.st.Passkeys(ctx, w.acct, h.op.ID); len(after) != len(before)+tc.adds {
				t.Errorf("passkeys %d → %d", len(before), len(after))
			}
		})
	}
}

// stepUpThenAdd adds a passkey on a new authenticator to h's operator.
func (w *world) stepUpThenAdd(t *testing.T, h holder) domain.Passkey {
	t.Helper()
	ctx := context.Background()
	creation, err := w.svc.BeginAddition(ctx, h.op, w.stepUpResponse(t, h))
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.svc.FinishAddition(ctx, w.as(h.op), h.op, "", must(passkeytest.New(origin, rpID).Register(creation)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
