package portal_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
)

// A passkey sign-in starts a session without a link: it records the
// credential, is no enrolment, and is audited; a link's session is one.
func TestStartSession(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	credential := w.passkey(t, w.omar, "credential-1")

	token, s, err := w.p.StartSession(ctx, w.acct, w.omar.ID, credential)
	if err != nil {
		t.Fatal(err)
	}
	now := w.clock.now()
	if !strings.HasPrefix(token, portal.SessionPrefix) || s.Enrolment || !bytes.Equal(s.CredentialID, credential) ||
		s.Operator.ID != w.omar.ID || !s.ExpiresAt.Equal(now.Add(portal.SessionAbsolute)) || !s.IdleUntil.Equal(now.Add(portal.SessionIdle)) {
		t.Errorf("session = %+v", s)
	}
	w.clock.add(5 * time.Minute)
	got, err := w.p.Session(ctx, token)
	if err != nil || got.Enrolment || !bytes.Equal(got.CredentialID, credential) {
		t.Errorf("session read back = %+v, %v", got, err)
	}
	trail, err := w.st.AccountAudit(ctx, w.acct, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) == 0 || trail[0].Action != domain.ActionPortalSignIn || trail[0].OperatorID != w.omar.ID || trail[0].After["method"] != "passkey" ||
		strings.Contains(trail[0].ActionID, token) {
		t.Errorf("sign-in audit = %+v", trail)
	}

	// A link's session is an enrolment, with no credential.
	_, linked, err := w.p.Redeem(ctx, w.mint(t, w.sara).Token)
	if err != nil || !linked.Enrolment || linked.CredentialID != nil {
		t.Errorf("a link's session = %+v, %v", linked, err)
	}

	for _, tc := range []struct {
		name       string
		operator   func() int64
		credential []byte
		code       string
	}{
		{"no credential", func() int64 { return w.omar.ID }, nil, domain.ECodeInvalid},
		{"no such operator", func() int64 { return 999 }, credential, domain.ECodeNotFound},
		{"a disabled operator", func() int64 { w.disable(t, w.sara.ID, true); return w.sara.ID }, credential, domain.ECodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.sessions(t)
			_, _, err := w.p.StartSession(ctx, w.acct, tc.operator(), tc.credential)
			if domain.ErrorCode(err) != tc.code || errors.Is(err, portal.ErrNoSession) {
				t.Errorf("err = %v, want %s", err, tc.code)
			}
			if after := w.sessions(t); after != before {
				t.Errorf("sessions %d → %d", before, after)
			}
		})
	}
}

// A session lives only as long as the passkey it was signed in with:
// once the passkey is removed (by the operator, or revoked by an
// administrator: both delete it), every session it opened answers as
// none and is deleted, while a session of the operator's other passkey,
// and a link's session, live on.
func TestSessionsEndWithTheirPasskey(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	laptop, phone := w.passkey(t, w.omar, "laptop"), w.passkey(t, w.omar, "phone")
	start := func(credential []byte) string {
		t.Helper()
		token, _, err := w.p.StartSession(ctx, w.acct, w.omar.ID, credential)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	// The laptop's passkey opened two sessions (the console's and the
	// settings area's are one; two browsers are two).
	first, second, other := start(laptop), start(laptop), start(phone)
	link, _ := w.redeem(t, w.mint(t, w.omar))
	for _, token := range []string{first, second, other, link} {
		if _, err := w.p.Session(ctx, token); err != nil {
			t.Fatalf("before the removal: %v", err)
		}
	}
	before := w.sessions(t)
	p, err := w.st.Passkey(ctx, w.acct, w.omar.ID, laptop)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.st.RemovePasskey(ctx, p, domain.AuditRecord{AccountID: w.acct, ActionID: "revoke-laptop", Action: domain.ActionPasskeyRemove, At: w.clock.now()}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		token string
		live  bool
	}{
		{"the passkey's first session", first, false},
		{"the passkey's second session", second, false},
		{"the operator's other passkey's session", other, true},
		{"a link's session", link, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.p.Session(ctx, tc.token)
			if live := err == nil; live != tc.live || (err != nil && !errors.Is(err, portal.ErrNoSession)) {
				t.Errorf("Session = %v, want live %t", err, tc.live)
			}
		})
	}
	if after := w.sessions(t); after != before-2 {
		t.Errorf("%d sessions stored after the removal, want %d: the ended ones are deleted", after, before-2)
	}
}
