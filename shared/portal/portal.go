// Package portal is how a person signs in to the settings area: an
// administrator mints a single-use link for one operator (valid for 15
// minutes); opening it starts a session whose token lives only in an
// HttpOnly cookie. Links and sessions are stored by the SHA-256 of their
// token, never in clear. A session ends after 30 idle minutes, 12 hours in
// all, at sign-out, and as soon as its operator is disabled; it carries the
// operator's permissions as they are at each request.
//
// The operator console takes the same links to enrol an operator: a link's
// session is marked Enrolment, and the console lets it only register a
// passkey; a passkey sign-in then starts a session of its own
// (StartSession) that records the credential, and ends when that passkey
// is removed or revoked.
package portal

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Lifetimes of links and sessions.
const (
	LinkTTL         = 15 * time.Minute
	SessionIdle     = 30 * time.Minute
	SessionAbsolute = 12 * time.Hour
)

// Refusals of a link, each shown to the person as its own page; none of
// them starts a session.
var (
	ErrLinkUnknown = errors.New("portal: this sign-in link is not valid")
	ErrLinkUsed    = errors.New("portal: this sign-in link was already used")
	ErrLinkExpired = errors.New("portal: this sign-in link has expired")
	// ErrNoSession: the cookie names no live session (unknown, ended,
	// expired, or its operator disabled).
	ErrNoSession = errors.New("portal: not signed in")
)

// Link is a minted sign-in link. Token appears in clear only here.
type Link struct {
	Token      string
	AccountID  int64
	OperatorID int64
	ExpiresAt  time.Time
}

// Session is a signed-in operator, as of the request.
type Session struct {
	AccountID int64
	Operator  domain.Operator // with its current permissions
	StartedAt time.Time
	// ExpiresAt is the absolute end; IdleUntil moves with each request.
	ExpiresAt time.Time
	IdleUntil time.Time
	// CredentialID is the passkey the operator signed in with (StartSession);
	// nil for a session a link started. The session lives only as long as
	// the passkey is the operator's.
	CredentialID []byte
	// Enrolment: a sign-in link started the session. The settings area
	// takes it whole; the console lets it only register a passkey.
	Enrolment bool
}

// Can reports whether the session's operator holds perm now.
func (s Session) Can(perm string) bool { return s.Operator.Can(perm) }

// Portal mints links and keeps sessions: Service implements it over a
// Store; the settings app and the admin command (portal.link) use it. Link
// tokens are "evs_portal_" and session tokens "evs_session_", each with 32
// random bytes in base64url; anything else is refused without a read.
type Portal interface {
	// Mint makes a link for an active operator of the account; the actor
	// (an administrator) is named in the audit trail.
	// not_found: no such operator; validation_failed: operator disabled (or
	// a field missing); forbidden: the actor is an operator; conflict: the
	// actor's action id was used before.
	Mint(ctx context.Context, a domain.Actor, operatorID int64) (Link, error)
	// Redeem uses a link's token once and starts a session: the session's
	// token (for the cookie) and the session. ErrLinkUnknown, ErrLinkUsed,
	// ErrLinkExpired, or validation_failed when the operator is disabled.
	Redeem(ctx context.Context, linkToken string) (sessionToken string, s Session, err error)
	// Session is the live session a cookie's token names, its idle time
	// moved on (written at most once a minute); ErrNoSession otherwise, the
	// session then ended if it was past its time, its operator disabled or
	// its passkey removed.
	Session(ctx context.Context, sessionToken string) (Session, error)
	// End ends a session (sign-out); ending an unknown one is no error.
	End(ctx context.Context, sessionToken string) error
}

// ConsoleCookie names the console's session cookie. The console sets it on
// its own paths and on the settings area's, so a passkey sign-in serves
// both; the settings area reads it when it has no session of its own.
const ConsoleCookie = "evs_console"

// LinkPath is where a link leads: the operator console's enrolment page,
// which redeems the single-use link only when the person presses Continue,
// and then has them register a passkey. Links are for enrolment and
// recovery only; every sign-in after that is a passkey's. The token is in
// the query parameter LinkParam: <base>/console/enrol?token=evs_portal_….
const (
	LinkPath  = "/console/enrol"
	LinkParam = "token"
)

// maxLinkToken bounds a link token read from a request: a longer one is
// unknown without a look-up.
const maxLinkToken = 512

// LinkToken is the link token that a request's values carry under
// LinkParam; ok is false when there is none or it is too long to be one.
func LinkToken(v url.Values) (token string, ok bool) {
	token = v.Get(LinkParam)
	return token, token != "" && len(token) <= maxLinkToken
}

// LinkURL is the address of a link's token under the console's base URL
// (the stage's URL, or http://localhost:3000 under make local: passkeys
// need a host name as RP id, never an IP address).
func LinkURL(base, token string) (string, error) {
	if err := CheckBaseURL(base); err != nil {
		return "", err
	}
	return strings.TrimRight(base, "/") + LinkPath + "?" + url.Values{LinkParam: {token}}.Encode(), nil
}

// CheckBaseURL refuses a base URL a link cannot be built on: not absolute
// http(s), or carrying a query or a fragment.
func CheckBaseURL(base string) error {
	u, err := url.Parse(base)
	switch {
	case base == "":
		return errors.New("portal: the settings area's base URL is not set")
	case err != nil:
		return fmt.Errorf("portal: the settings area's base URL: %w", err)
	case (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return fmt.Errorf("portal: the settings area's base URL %q is not an absolute http(s) URL", base)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("portal: the settings area's base URL %q has a query, a fragment or credentials", base)
	}
	return nil
}
