package portal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Store is what the sign-in reads and writes.
type Store interface {
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// No codes; domain.ErrDuplicateAction if the action id was applied before.
	CreatePortalLink(ctx context.Context, l domain.PortalLink, audit domain.AuditRecord) error
	// not_found: no such link (never minted, or gone with its TTL).
	PortalLink(ctx context.Context, hash string) (domain.PortalLink, error)
	// validation_failed on operator: disabled; domain.ErrStale if the link
	// is used, past its end or gone (nothing is written then).
	RedeemPortalLink(ctx context.Context, linkHash string, s domain.PortalSession, audit domain.AuditRecord) error
	// not_found: no such session.
	PortalSession(ctx context.Context, hash string) (domain.PortalSession, error)
	// No codes; domain.ErrStale if the session is gone or idles until then
	// or later already.
	TouchPortalSession(ctx context.Context, hash string, idleUntil time.Time) error
	// No codes: ending a session that is gone is no error.
	EndPortalSession(ctx context.Context, hash string) error
	// validation_failed on operator: disabled (nothing is written then).
	StartPortalSession(ctx context.Context, s domain.PortalSession, audit domain.AuditRecord) error
	// not_found: the operator holds no passkey with this id (never, or no
	// longer: removed or revoked).
	Passkey(ctx context.Context, accountID, operatorID int64, credentialID []byte) (domain.Passkey, error)
}

// Service is the Portal over a Store.
type Service struct {
	Store Store
	// Clock stamps links and sessions and ends them (required).
	Clock domain.Clock
	// Rand makes the tokens: crypto/rand when nil.
	Rand io.Reader
}

var _ Portal = (*Service)(nil)

// touchEvery is how stale a session's idle end may get before a request
// writes it again. Moving it on with every request would make each page of
// the settings area (and each of its fetches) a read and a write; a minute
// of slack against 30 idle minutes costs the person nothing.
const touchEvery = time.Minute

// Mint makes a single-use link for an active operator of a.AccountID. Only
// the account's administrator mints (a.OperatorID 0: the admin function,
// the command line); the audit record names them and the operator, never
// the token.
func (s *Service) Mint(ctx context.Context, a domain.Actor, operatorID int64) (Link, error) {
	switch {
	case a.AccountID <= 0:
		return Link{}, domain.Invalid("account", "is required")
	case a.OperatorID != 0:
		return Link{}, domain.Errorf(domain.ECodeForbidden, "Sign-in links are minted by the account's administrator, not by an operator.")
	case strings.TrimSpace(a.ActionID) == "":
		return Link{}, domain.Invalid("action_id", "can't be blank")
	case operatorID <= 0:
		return Link{}, domain.Invalid("operator", "is required")
	}
	op, err := s.Store.Operator(ctx, a.AccountID, operatorID)
	if err != nil {
		return Link{}, err
	}
	if op.DisabledAt != nil {
		return Link{}, disabled(op)
	}
	token, err := newToken(reader(s.Rand), LinkPrefix)
	if err != nil {
		return Link{}, err
	}
	now := s.Clock.Now()
	l := domain.PortalLink{Hash: hashToken(token), AccountID: a.AccountID, OperatorID: op.ID, CreatedAt: now, ExpiresAt: now.Add(LinkTTL)}
	err = s.Store.CreatePortalLink(ctx, l, domain.AuditRecord{
		AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionPortalLink, OperatorName: a.AdminName(),
		Actor: a.Admin, RequestID: a.RequestID, At: now,
		After: map[string]any{"operator_id": op.ID, "operator_name": op.Name, "link_id": LinkID(l.Hash), "expires_at": domain.FormatTime(l.ExpiresAt)},
	})
	if errors.Is(err, domain.ErrDuplicateAction) {
		return Link{}, domain.Errorf(domain.ECodeConflict, "Action id %s was applied already: use a new one for a new link.", a.ActionID)
	}
	if err != nil {
		return Link{}, err
	}
	return Link{Token: token, AccountID: l.AccountID, OperatorID: l.OperatorID, ExpiresAt: l.ExpiresAt}, nil
}

// Redeem uses the link and starts a session, audited as the operator's
// sign-in. The link is read first, to tell its refusals apart cheaply;
// the transaction that marks it used decides, so of two redemptions at
// once exactly one starts a session and the other is told the link was
// used.
func (s *Service) Redeem(ctx context.Context, linkToken string) (string, Session, error) {
	if !wellFormed(linkToken, LinkPrefix) {
		return "", Session{}, ErrLinkUnknown
	}
	hash, now := hashToken(linkToken), s.Clock.Now()
	l, err := s.redeemable(ctx, hash, now)
	if err != nil {
		return "", Session{}, err
	}
	op, err := s.activeOperator(ctx, l.AccountID, l.OperatorID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return "", Session{}, domain.Invalid("operator", "no longer exists")
	}
	if err != nil {
		return "", Session{}, err
	}
	token, session, err := s.start(ctx, l.AccountID, op, now, signIn{
		// One sign-in per link: the link names the action.
		actionID:  func(string) string { return "portal-sign-in-" + LinkID(hash) },
		after:     map[string]any{"link_id": LinkID(hash)},
		enrolment: true,
		write: func(ctx context.Context, ps domain.PortalSession, audit domain.AuditRecord) error {
			return s.Store.RedeemPortalLink(ctx, hash, ps, audit)
		},
	})
	if errors.Is(err, domain.ErrStale) {
		// Another redemption won meanwhile (or the link went): say which.
		if _, err := s.redeemable(ctx, hash, now); err != nil {
			return "", Session{}, err
		}
		return "", Session{}, fmt.Errorf("portal: link %s refused by the store although unused and unexpired", LinkID(hash))
	}
	if err != nil {
		return "", Session{}, err
	}
	return token, session, nil
}

// redeemable is the link if it may start a session at now, else the
// refusal that says why: a used link is "used" even once expired.
func (s *Service) redeemable(ctx context.Context, hash string, now time.Time) (domain.PortalLink, error) {
	l, err := s.Store.PortalLink(ctx, hash)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return l, ErrLinkUnknown
	case err != nil:
		return l, err
	case l.UsedAt != nil:
		return l, ErrLinkUsed
	case !now.Before(l.ExpiresAt):
		return l, ErrLinkExpired
	}
	return l, nil
}

// Session is the live session the token names, with its operator as it is
// now. A session past its end, whose operator is disabled, or whose
// passkey is gone (passkeyGone) is ended.
func (s *Service) Session(ctx context.Context, sessionToken string) (Session, error) {
	if !wellFormed(sessionToken, SessionPrefix) {
		return Session{}, ErrNoSession
	}
	hash := hashToken(sessionToken)
	ps, err := s.Store.PortalSession(ctx, hash)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, err
	}
	now := s.Clock.Now()
	if !now.Before(ps.ExpiresAt) || !now.Before(ps.IdleUntil) {
		return Session{}, s.end(ctx, hash)
	}
	op, err := s.Store.Operator(ctx, ps.AccountID, ps.OperatorID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return Session{}, s.end(ctx, hash)
	case err != nil:
		return Session{}, err
	case op.DisabledAt != nil:
		return Session{}, s.end(ctx, hash)
	}
	switch gone, err := s.passkeyGone(ctx, ps); {
	case err != nil:
		return Session{}, err
	case gone:
		return Session{}, s.end(ctx, hash)
	}
	next := now.Add(SessionIdle)
	if next.After(ps.ExpiresAt) {
		next = ps.ExpiresAt
	}
	if next.Sub(ps.IdleUntil) >= touchEvery {
		switch err := s.Store.TouchPortalSession(ctx, hash, next); {
		case err == nil:
			ps.IdleUntil = next
		case errors.Is(err, domain.ErrStale):
			// Another request moved it on, or a sign-out ended it after
			// this request read it: this request, begun before, goes on.
		default:
			return Session{}, err
		}
	}
	return sessionOf(ps, op), nil
}

// passkeyGone reports whether the passkey a session was signed in with is
// no longer the operator's: removed by them, or revoked by an
// administrator. Such a session ends here, at its next request, rather
// than when the passkey goes: sessions are kept by their token's hash
// alone, with nothing that finds them by credential, and a check at the
// lookup ends them whichever way the passkey went (the console's removal,
// passkey.revoke, any later one), including a session started while it
// was being revoked. It costs one consistent read per request. A session
// a link started records no passkey and is kept by its own short rules.
func (s *Service) passkeyGone(ctx context.Context, ps domain.PortalSession) (bool, error) {
	if len(ps.CredentialID) == 0 {
		return false, nil
	}
	_, err := s.Store.Passkey(ctx, ps.AccountID, ps.OperatorID, ps.CredentialID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return true, nil
	case err != nil:
		return false, fmt.Errorf("portal: the session's passkey: %w", err)
	}
	return false, nil
}

// End ends the session the token names; garbage or a session already gone
// is no error.
func (s *Service) End(ctx context.Context, sessionToken string) error {
	if !wellFormed(sessionToken, SessionPrefix) {
		return nil
	}
	return s.Store.EndPortalSession(ctx, hashToken(sessionToken))
}

// end deletes a session found dead and answers ErrNoSession, or the fault
// that kept it from going.
func (s *Service) end(ctx context.Context, hash string) error {
	if err := s.Store.EndPortalSession(ctx, hash); err != nil {
		return err
	}
	return ErrNoSession
}

func sessionOf(ps domain.PortalSession, op domain.Operator) Session {
	return Session{AccountID: ps.AccountID, Operator: op, StartedAt: ps.StartedAt, ExpiresAt: ps.ExpiresAt, IdleUntil: ps.IdleUntil,
		CredentialID: ps.CredentialID, Enrolment: ps.Enrolment}
}

func disabled(op domain.Operator) error {
	return domain.Invalid("operator", fmt.Sprintf("%d (%s) is disabled", op.ID, op.Name))
}
