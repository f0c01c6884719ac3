package passkey_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// signWith begins h's signing ceremony over digest for purpose and answers
// it with auth (h's own when nil).
func (w *world) signWith(t *testing.T, h holder, auth *passkeytest.Authenticator, purpose, digest string) passkey.Assertion {
	t.Helper()
	opts, err := w.svc.BeginSigning(context.Background(), h.op, purpose, digest)
	if err != nil {
		t.Fatal(err)
	}
	if auth == nil {
		auth = h.auth
	}
	a, err := passkey.AssertionFromResponse(must(auth.Get(opts)))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// withoutAllow drops allowCredentials, so any credential answers: what a
// client that ignores them does.
func withoutAllow(t *testing.T, opts json.RawMessage) json.RawMessage {
	t.Helper()
	o := options(t, opts)
	delete(o, "allowCredentials")
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A signature made in the operator's ceremony over the digest checks,
// again and again (nothing is consumed), and its record verifies alone.
func TestCheckSigned(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	alice, bob := w.holder(t, "Alice"), w.holder(t, "Bob")
	d1 := digestOf("decision document 1")

	opts, err := w.svc.BeginSigning(ctx, alice.op, passkey.PurposeDecision, d1)
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, opts)
	allow, _ := o["allowCredentials"].([]any)
	if o["userVerification"] != "required" || len(allow) != 1 || allow[0].(map[string]any)["id"] != base64.RawURLEncoding.EncodeToString(alice.pk.ID) {
		t.Errorf("signing options: %s", opts)
	}
	a, err := passkey.AssertionFromResponse(must(alice.auth.Get(opts)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		s, err := w.svc.CheckSigned(ctx, a, w.acct, passkey.PurposeDecision, d1)
		if err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
		challenge := passkey.SignedChallenge(s.Nonce, d1)
		sum := sha256.Sum256(challenge)
		if s.AccountID != w.acct || s.OperatorID != alice.op.ID || string(s.Passkey.ID) != string(alice.pk.ID) || s.Passkey.SignCount != 0 ||
			s.NextCount != 1 || len(s.Nonce) != 32 || s.CeremonyHash != hex.EncodeToString(sum[:]) || s.Assertion != a {
			t.Errorf("check %d: %+v", i, s)
		}
		if !strings.Contains(string(must(base64.RawURLEncoding.DecodeString(a.ClientDataJSON))), base64.RawURLEncoding.EncodeToString(challenge)) {
			t.Errorf("clientDataJSON %s does not carry SignedChallenge(nonce, digest)", must(base64.RawURLEncoding.DecodeString(a.ClientDataJSON)))
		}
		if err := passkey.VerifyRecord(s.Passkey.PublicKey, config(), a, s.Nonce, d1); err != nil {
			t.Errorf("VerifyRecord: %v", err)
		}
		if c, err := w.st.Ceremony(ctx, s.CeremonyHash); err != nil || c.Digest != d1 || c.Purpose != passkey.PurposeDecision {
			t.Errorf("the ceremony after a check: %+v, %v", c, err)
		}
	}
	if _, err := w.svc.CheckSigned(ctx, w.signWith(t, bob, nil, passkey.PurposeApproval, d1), w.acct, passkey.PurposeApproval, d1); err != nil {
		t.Errorf("the second operator's approval: %v", err)
	}
}

// CheckSigned refuses, as signature_required, every signature that is not
// the ceremony's operator's verified assertion over this digest for this
// purpose; a counter that went back is recorded.
func TestCheckSignedRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	bob := w.holder(t, "Bob")
	d1, d2 := digestOf("decision document 1"), digestOf("decision document 2")
	type check struct {
		a       passkey.Assertion
		purpose string
		digest  string
		acct    int64
	}
	decision := func(a passkey.Assertion) check { return check{a, passkey.PurposeDecision, d1, w.acct} }
	clone := func(h holder, change func(*passkeytest.Authenticator)) *passkeytest.Authenticator {
		c := h.auth.Clone()
		change(c)
		return c
	}
	for _, tc := range []struct {
		name    string
		present func(t *testing.T, h holder) check
		audited bool
	}{
		{"another digest", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			c.digest = d2
			return c
		}, false},
		{"another purpose", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			c.purpose = passkey.PurposeApproval
			return c
		}, false},
		{"an approval's ceremony as a decision", func(t *testing.T, h holder) check {
			return decision(w.signWith(t, h, nil, passkey.PurposeApproval, d1))
		}, false},
		{"a login's assertion", func(t *testing.T, h holder) check {
			a, err := passkey.AssertionFromResponse(w.loginResponse(t, h.auth))
			if err != nil {
				t.Fatal(err)
			}
			return decision(a)
		}, false},
		{"another account", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			c.acct = w.acct + 1
			return c
		}, false},
		{"another operator's ceremony", func(t *testing.T, h holder) check {
			opts, err := w.svc.BeginSigning(ctx, bob.op, passkey.PurposeDecision, d1)
			if err != nil {
				t.Fatal(err)
			}
			a, err := passkey.AssertionFromResponse(must(h.auth.Get(withoutAllow(t, opts))))
			if err != nil {
				t.Fatal(err)
			}
			return decision(a)
		}, false},
		{"another operator's credential", func(t *testing.T, h holder) check {
			opts, err := w.svc.BeginSigning(ctx, h.op, passkey.PurposeDecision, d1)
			if err != nil {
				t.Fatal(err)
			}
			a, err := passkey.AssertionFromResponse(must(bob.auth.Get(withoutAllow(t, opts))))
			if err != nil {
				t.Fatal(err)
			}
			// The user handle is not signed: claim the ceremony's operator.
			a.UserHandle = base64.RawURLEncoding.EncodeToString(passkey.UserHandle(w.acct, h.op.ID))
			return decision(a)
		}, false},
		{"UV clear", func(t *testing.T, h holder) check {
			return decision(w.signWith(t, h, clone(h, func(c *passkeytest.Authenticator) { c.UV = false }), passkey.PurposeDecision, d1))
		}, false},
		{"UV flag forged after signing without it", func(t *testing.T, h holder) check {
			opts, err := w.svc.BeginSigning(ctx, h.op, passkey.PurposeDecision, d1)
			if err != nil {
				t.Fatal(err)
			}
			resp := must(clone(h, func(c *passkeytest.Authenticator) { c.UV = false }).Get(opts))
			a, err := passkey.AssertionFromResponse(must(passkeytest.ForgeFlags(resp, passkeytest.FlagUV, 0)))
			if err != nil {
				t.Fatal(err)
			}
			return decision(a)
		}, false},
		{"counter gone back", func(t *testing.T, h holder) check {
			if _, err := w.svc.FinishLogin(ctx, w.loginResponse(t, h.auth)); err != nil {
				t.Fatal(err)
			}
			if err := h.auth.SetCounter(h.pk.ID, 0); err != nil {
				t.Fatal(err)
			}
			return decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
		}, true},
		{"past the ceremony's end", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			start := w.now
			w.now = w.now.Add(passkey.SigningTTL)
			t.Cleanup(func() { w.now = start })
			return c
		}, false},
		{"disabled operator", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			w.disable(t, h.op)
			return c
		}, false},
		{"passkey revoked meanwhile", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			if err := w.svc.Remove(ctx, w.admin(), h.op, h.pk.ID); err != nil {
				t.Fatal(err)
			}
			return c
		}, false},
		{"wrong origin", func(t *testing.T, h holder) check {
			return decision(w.signWith(t, h, clone(h, func(c *passkeytest.Authenticator) { c.Origin = "https://evil.example" }), passkey.PurposeDecision, d1))
		}, false},
		{"wrong RP id", func(t *testing.T, h holder) check {
			return decision(w.signWith(t, h, clone(h, func(c *passkeytest.Authenticator) { c.RPID = "evil.example" }), passkey.PurposeDecision, d1))
		}, false},
		{"backup eligibility changed", func(t *testing.T, h holder) check {
			return decision(w.signWith(t, h, clone(h, func(c *passkeytest.Authenticator) { c.BE = true }), passkey.PurposeDecision, d1))
		}, false},
		{"malformed", func(t *testing.T, h holder) check {
			c := decision(w.signWith(t, h, nil, passkey.PurposeDecision, d1))
			c.a.Signature += "="
			return c
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := w.holder(t, tc.name)
			c := tc.present(t, h)
			before := len(w.regressions(t))
			s, err := w.svc.CheckSigned(ctx, c.a, c.acct, c.purpose, c.digest)
			if domain.ErrorCode(err) != domain.ECodeSignatureRequired {
				t.Fatalf("CheckSigned = %+v, %v; want signature_required", s, err)
			}
			t.Logf("refused: %v", err)
			if got := len(w.regressions(t)) > before; got != tc.audited {
				t.Errorf("regression audited: %v, want %v", got, tc.audited)
			}
			if rec, ok := w.regressionOf(t, h.pk); ok != tc.audited || (ok && (rec.OperatorID != h.op.ID || rec.After["purpose"] != passkey.PurposeDecision)) {
				t.Errorf("regression record of this passkey: %+v (%v)", rec, ok)
			}
		})
	}
}

// BeginSigning refuses a purpose that signs nothing, a digest that is not
// a SHA-256 in lowercase hex, and an operator with nothing to sign with.
func TestBeginSigningRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	h := w.holder(t, "Alice")
	bare := w.operator(t, "No passkey")
	gone := w.holder(t, "Gone")
	w.disable(t, gone.op)
	gone.op.DisabledAt = &w.now
	d := digestOf("doc")
	for _, tc := range []struct {
		name    string
		op      domain.Operator
		purpose string
		digest  string
		code    string
	}{
		{"login purpose", h.op, passkey.PurposeLogin, d, domain.ECodeInvalid},
		{"no purpose", h.op, "", d, domain.ECodeInvalid},
		{"uppercase digest", h.op, passkey.PurposeDecision, strings.ToUpper(d), domain.ECodeInvalid},
		{"short digest", h.op, passkey.PurposeDecision, d[:62], domain.ECodeInvalid},
		{"no digest", h.op, passkey.PurposeDecision, "", domain.ECodeInvalid},
		{"no passkey", bare, passkey.PurposeDecision, d, domain.ECodeConflict},
		{"disabled operator", gone.op, passkey.PurposeApproval, d, domain.ECodeForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.svc.BeginSigning(ctx, tc.op, tc.purpose, tc.digest); domain.ErrorCode(err) != tc.code {
				t.Errorf("BeginSigning: %v, want %s", err, tc.code)
			}
		})
	}
}
