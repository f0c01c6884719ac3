package store

import (
	"context"
	"time"

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
}

func newPortalSessionItem(s domain.PortalSession) portalSessionItem {
	return portalSessionItem{TokenHash: s.Hash, Kind: portalKindSession, AccountID: s.AccountID, OperatorID: s.OperatorID,
		StartedAt: fmtTime(s.StartedAt), EndsAt: fmtTime(s.ExpiresAt), IdleUntil: fmtTime(s.IdleUntil),
		ExpiresAt: s.ExpiresAt.Unix()}
}

func (it portalSessionItem) domain() domain.PortalSession {
	return domain.PortalSession{Hash: it.TokenHash, AccountID: it.AccountID, OperatorID: it.OperatorID,
		StartedAt: parseTime(it.StartedAt), ExpiresAt: parseTime(it.EndsAt), IdleUntil: parseTime(it.IdleUntil)}
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
