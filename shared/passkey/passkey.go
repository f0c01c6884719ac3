// Package passkey holds operators' passkeys: registering them, signing in
// with them, and signing decisions with them. The register and login
// ceremonies are go-webauthn's; a decision's signature is an assertion over
// a challenge derived from the decision's digest (SignedChallenge), checked
// here when it is given and verifiable later, without the store, by anyone
// holding the public key (VerifyRecord). User verification is required
// everywhere: a passkey stands for a person, not for a device.
package passkey

import (
	"context"
	"io"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Purposes of ceremonies: what finishing one may do. A ceremony finishes
// only for its own purpose, so a sign-in's assertion never signs a decision
// and a registration an enrolment began is never finished as one a
// step-up allowed.
const (
	// PurposeRegister: a registration by an enrolment (a link's session).
	PurposeRegister = "register"
	PurposeLogin    = "login"
	PurposeDecision = "decision"
	PurposeApproval = "approval"
	// PurposeStepUp: the fresh assertion by one of an operator's passkeys
	// that allows them to add another (BeginStepUp).
	PurposeStepUp = "step-up"
	// PurposeAdd: a registration a step-up allowed (BeginAddition).
	PurposeAdd = "add"
)

// Lifetimes of ceremonies: each is a person at the browser, and lives as
// long as that takes, not longer. A register, login or step-up ceremony
// is begun and answered in one sitting. A decision's or an approval's is
// too: it is begun when the person presses Sign, answered by their
// passkey, and consumed seconds later, when the workflow applies the
// decision or, for a four-eyes maker, records it as waiting (the wait
// keeps what Apply checks the signature with; the ceremony is gone); the
// second operator's own ceremony is begun when they approve, days later
// maybe, and lives as short. So a signature that was refused (a stale
// dossier, a transition no longer allowed) cannot be used again after
// five minutes, and never once used. Five minutes leave room for a slow
// authenticator, the workflow's start and its retries, with margin.
const (
	CeremonyTTL = 5 * time.Minute
	SigningTTL  = 5 * time.Minute
)

// Store is what passkeys read and write.
type Store interface {
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// conflict: the credential is the operator's already;
	// domain.ErrDuplicateAction if the action id was applied before.
	AddPasskey(ctx context.Context, p domain.Passkey, audit domain.AuditRecord) error
	// No codes.
	Passkeys(ctx context.Context, accountID, operatorID int64) ([]domain.Passkey, error)
	// not_found: the operator holds no passkey with this id.
	Passkey(ctx context.Context, accountID, operatorID int64, credentialID []byte) (domain.Passkey, error)
	// No codes; domain.ErrStale if the counter moved since p was read.
	UsePasskey(ctx context.Context, p domain.Passkey, next uint32, at time.Time) error
	// not_found: no such passkey; domain.ErrDuplicateAction if the action
	// id was applied before.
	RemovePasskey(ctx context.Context, p domain.Passkey, audit domain.AuditRecord) error
	// No codes.
	PutCeremony(ctx context.Context, c domain.Ceremony) error
	// not_found: taken already, of another purpose, past its end or never
	// begun.
	TakeCeremony(ctx context.Context, hash, purpose string, now time.Time) (domain.Ceremony, error)
	// not_found: no such ceremony (its end is not checked).
	Ceremony(ctx context.Context, hash string) (domain.Ceremony, error)
	// No codes; domain.ErrDuplicateAction if the action id was applied
	// before.
	PutAudit(ctx context.Context, a domain.AuditRecord) error
}

// Service is passkeys over a Store.
type Service struct {
	Store Store
	// Clock stamps passkeys and ceremonies and ends them (required).
	Clock domain.Clock
	// Config is the relying party: who the passkeys are for.
	Config Config
	// Rand makes challenges and nonces: crypto/rand when nil.
	Rand io.Reader
}
