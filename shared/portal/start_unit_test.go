package portal

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// sessionStore is the part of Store a sign-in writes, in memory; the rest
// of Store is left nil (a call to it would be a bug of the test).
type sessionStore struct {
	Store
	op      domain.Operator
	link    domain.PortalLink
	written domain.PortalSession
	audit   domain.AuditRecord
}

func (f *sessionStore) Operator(context.Context, int64, int64) (domain.Operator, error) {
	return f.op, nil
}

func (f *sessionStore) PortalLink(context.Context, string) (domain.PortalLink, error) {
	return f.link, nil
}

func (f *sessionStore) RedeemPortalLink(_ context.Context, _ string, s domain.PortalSession, audit domain.AuditRecord) error {
	f.written, f.audit = s, audit
	return nil
}

func (f *sessionStore) StartPortalSession(_ context.Context, s domain.PortalSession, audit domain.AuditRecord) error {
	f.written, f.audit = s, audit
	return nil
}

// Both ways of signing in start a session the same way: the same lifetime,
// the same operator, a sign-in audited with the session's id and end; they
// differ only in what names the action and what the session records.
func TestEveryWayOfSigningInStartsTheSameSession(t *testing.T) {
	now := time.Date(2026, 1, 31, 9, 30, 0, 0, time.UTC)
	op := domain.Operator{AccountID: 1, ID: 7, Name: "Omar"}
	linkToken := LinkPrefix + strings.Repeat("A", 43)
	linkHash := hashToken(linkToken)
	tests := []struct {
		name           string
		signIn         func(s *Service) (string, Session, error)
		wantEnrolment  bool
		wantCredential []byte
		wantAction     string // "" for the session's own id
		wantAfter      []string
	}{
		{"a link", func(s *Service) (string, Session, error) { return s.Redeem(context.Background(), linkToken) },
			true, nil, "portal-sign-in-" + LinkID(linkHash), []string{"expires_at", "link_id", "session_id"}},
		{"a passkey", func(s *Service) (string, Session, error) {
			return s.StartSession(context.Background(), 1, 7, []byte("credential-1"))
		}, false, []byte("credential-1"), "", []string{"credential_id", "expires_at", "method", "session_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &sessionStore{op: op, link: domain.PortalLink{Hash: linkHash, AccountID: 1, OperatorID: 7, ExpiresAt: now.Add(time.Hour)}}
			token, s, err := tt.signIn(&Service{Store: st, Clock: domain.FixedClock(now), Rand: bytes.NewReader(bytes.Repeat([]byte{1}, 64))})
			if err != nil {
				t.Fatal(err)
			}
			ps := st.written
			if ps.Hash != hashToken(token) || ps.AccountID != 1 || ps.OperatorID != 7 || !ps.StartedAt.Equal(now) ||
				!ps.ExpiresAt.Equal(now.Add(SessionAbsolute)) || !ps.IdleUntil.Equal(now.Add(SessionIdle)) ||
				ps.Enrolment != tt.wantEnrolment || !bytes.Equal(ps.CredentialID, tt.wantCredential) {
				t.Errorf("session written = %+v", ps)
			}
			if s.Operator.ID != 7 || s.Enrolment != tt.wantEnrolment || !s.ExpiresAt.Equal(ps.ExpiresAt) {
				t.Errorf("session answered = %+v", s)
			}
			wantAction := tt.wantAction
			if wantAction == "" {
				wantAction = "passkey-sign-in-" + SessionID(ps.Hash)
			}
			a := st.audit
			if a.Action != domain.ActionPortalSignIn || a.ActionID != wantAction || a.AccountID != 1 || a.OperatorID != 7 || a.OperatorName != "Omar" || !a.At.Equal(now) {
				t.Errorf("audit = %+v, want action id %s", a, wantAction)
			}
			if got := slices.Sorted(maps.Keys(a.After)); !slices.Equal(got, tt.wantAfter) {
				t.Errorf("audited fields = %v, want %v", got, tt.wantAfter)
			}
			if a.After["session_id"] != SessionID(ps.Hash) || a.After["expires_at"] != domain.FormatTime(ps.ExpiresAt) {
				t.Errorf("audit names another session: %v", a.After)
			}
		})
	}
}
