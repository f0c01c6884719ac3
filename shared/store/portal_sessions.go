package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// portalSessionItem is a settings-area session; RedeemPortalLink creates it.
type portalSessionItem struct {
	TokenHash  string `dynamo:"token_hash,hash"`
	Kind       string `dynamo:"kind"`
	AccountID  int64  `dynamo:"account_id"`
	OperatorID int64  `dynamo:"operator_id"`
	StartedAt  string `dynamo:"started_at"`
	// EndsAt is the absolute end, IdleUntil the end unless used before
	// (domain.TimeLayout, so a condition compares them as strings).
	EndsAt    string `dynamo:"ends_at"`
	IdleUntil string `dynamo:"idle_until"`
	// ExpiresAt is the TTL attribute (Unix seconds): the absolute end.
	ExpiresAt int64 `dynamo:"expires_at"`
	// CredentialID is the passkey a console sign-in used; Enrolment marks
	// a session a link started.
	CredentialID []byte `dynamo:"credential_id,omitempty"`
	Enrolment    bool   `dynamo:"enrolment,omitempty"`
}

func newPortalSessionItem(s domain.PortalSession) portalSessionItem {
	return portalSessionItem{TokenHash: s.Hash, Kind: portalKindSession, AccountID: s.AccountID, OperatorID: s.OperatorID,
		StartedAt: fmtTime(s.StartedAt), EndsAt: fmtTime(s.ExpiresAt), IdleUntil: fmtTime(s.IdleUntil),
		ExpiresAt: s.ExpiresAt.Unix(), CredentialID: s.CredentialID, Enrolment: s.Enrolment}
}

func (it portalSessionItem) domain() domain.PortalSession {
	return domain.PortalSession{Hash: it.TokenHash, AccountID: it.AccountID, OperatorID: it.OperatorID,
		StartedAt: parseTime(it.StartedAt), ExpiresAt: parseTime(it.EndsAt), IdleUntil: parseTime(it.IdleUntil),
		CredentialID: it.CredentialID, Enrolment: it.Enrolment}
}

// PortalSession returns the session whose token hashes to hash, strongly
// consistent (the first request after the sign-in finds it), ended by time
// or not: the caller compares the times.
func (s *Store) PortalSession(ctx context.Context, hash string) (domain.PortalSession, error) {
	var it portalSessionItem
	err := s.table(schema.PortalTokens).Get("token_hash", hash).Consistent(true).One(ctx, &it)
	if err == nil && it.Kind != portalKindSession {
		err = domain.Errorf(domain.ECodeNotFound, "Session not found.")
	}
	if err != nil {
		return domain.PortalSession{}, wrap(notFound(err, "Session"), "get portal session")
	}
	return it.domain(), nil
}

// TouchPortalSession moves the session's idle end on to idleUntil;
// domain.ErrStale if it is gone (ended meanwhile) or already idles until
// then or later (another request moved it).
func (s *Store) TouchPortalSession(ctx context.Context, hash string, idleUntil time.Time) error {
	err := s.table(schema.PortalTokens).Update("token_hash", hash).
		Set("idle_until", fmtTime(idleUntil)).
		// Without the condition on its kind an update would create an item.
		If("'kind' = ? AND idle_until < ?", portalKindSession, fmtTime(idleUntil)).
		Run(ctx)
	if isCondFailed(err) {
		return domain.ErrStale
	}
	return wrap(err, "touch portal session")
}

// EndPortalSession deletes the session; one already gone is no error. The
// condition keeps a link's hash, given by mistake, from deleting the link.
func (s *Store) EndPortalSession(ctx context.Context, hash string) error {
	err := s.table(schema.PortalTokens).Delete("token_hash", hash).
		If("attribute_not_exists(token_hash) OR 'kind' = ?", portalKindSession).
		Run(ctx)
	if isCondFailed(err) {
		return nil
	}
	return wrap(err, "end portal session")
}

// StartPortalSession starts a session without a link (a passkey sign-in),
// with the audit record of the sign-in, in one transaction: the operator
// must still be active (validation_failed on operator otherwise).
func (s *Store) StartPortalSession(ctx context.Context, sess domain.PortalSession, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(s.table(schema.PortalTokens).Put(newPortalSessionItem(sess)).If("attribute_not_exists(token_hash)")).
			Check(s.table(schema.Accounts).Check("account_id", sess.AccountID).Range("sk", operatorSK(sess.OperatorID)).
				If("attribute_exists(operator_id) AND attribute_not_exists(disabled_at)")).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 1):
		return domain.Invalid("operator", "is disabled")
	case cancelledAt(err, 0), cancelledAt(err, 2):
		// A fresh random session token or its audit record's action id
		// taken: never, short of a bug.
		return fmt.Errorf("start portal session: the session or its audit record exists already")
	}
	return wrap(err, "start portal session")
}
