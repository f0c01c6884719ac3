package domain

import "time"

// The settings area's sign-in (package portal): links an administrator
// mints for one operator, and the sessions they start. Both are stored by
// the SHA-256 of their token alone; the token itself exists only in the
// link's URL and in the session's cookie.

// PortalLink is a single-use sign-in link as stored.
type PortalLink struct {
	Hash       string // lowercase hex SHA-256 of the token
	AccountID  int64
	OperatorID int64
	CreatedAt  time.Time
	// ExpiresAt is when the link stops signing in.
	ExpiresAt time.Time
	// UsedAt is set once the link started a session.
	UsedAt *time.Time
}

// PortalSession is a signed-in operator's session as stored.
type PortalSession struct {
	Hash       string // lowercase hex SHA-256 of the token
	AccountID  int64
	OperatorID int64
	StartedAt  time.Time
	// ExpiresAt is the absolute end; IdleUntil the end unless it is used
	// again before.
	ExpiresAt time.Time
	IdleUntil time.Time
	// CredentialID is the passkey the operator signed in with (the
	// console's sign-in); nil for a session a link started.
	CredentialID []byte
	// Enrolment marks a session a sign-in link started: the console lets
	// it do one thing, register a passkey, since a link proves only that
	// someone holds the link.
	Enrolment bool
}

// Audited actions of the sign-in.
const (
	// ActionPortalLink: an administrator minted a sign-in link.
	ActionPortalLink Action = "portal.link"
	// ActionPortalSignIn: an operator opened one, starting a session.
	ActionPortalSignIn Action = "portal.sign_in"
)
