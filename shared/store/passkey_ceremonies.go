package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Ceremonies share the portal_tokens table with sign-in links and sessions,
// under the SHA-256 of their challenge, as kind "ceremony": short-lived,
// single-use secrets of the same sort, kept until their TTL.
const portalKindCeremony = "ceremony"

type ceremonyItem struct {
	TokenHash  string `dynamo:"token_hash,hash"`
	Kind       string `dynamo:"kind"`
	Purpose    string `dynamo:"purpose"`
	AccountID  int64  `dynamo:"account_id,omitempty"`
	OperatorID int64  `dynamo:"operator_id,omitempty"`
	Session    []byte `dynamo:"session"`
	Digest     string `dynamo:"digest,omitempty"`
	CreatedAt  string `dynamo:"created_at"`
	// EndsAt is when the ceremony may no longer finish (domain.TimeLayout,
	// so a condition compares it as a string); ExpiresAt the TTL.
	EndsAt    string `dynamo:"ends_at"`
	ExpiresAt int64  `dynamo:"expires_at"`
}

// PutCeremony keeps a ceremony begun; a challenge is random, so a hash
// already stored is a fault.
func (s *Store) PutCeremony(ctx context.Context, c domain.Ceremony) error {
	it := ceremonyItem{TokenHash: c.Hash, Kind: portalKindCeremony, Purpose: c.Purpose, AccountID: c.AccountID, OperatorID: c.OperatorID,
		Session: c.Session, Digest: c.Digest, CreatedAt: fmtTime(c.CreatedAt), EndsAt: fmtTime(c.ExpiresAt), ExpiresAt: c.ExpiresAt.Unix()}
	err := s.table(schema.PortalTokens).Put(it).If("attribute_not_exists(token_hash)").Run(ctx)
	if err != nil {
		return fmt.Errorf("put ceremony: %w", err)
	}
	return nil
}

// TakeCeremony removes and returns the ceremony of the challenge, once: of
// two finishing the same ceremony, one gets it and the other not_found, as
// do a ceremony of another purpose, one past its end (DynamoDB's TTL
// removes items only eventually) and one never begun. The delete is
// conditioned on all of it, so nothing is taken that cannot be used.
func (s *Store) TakeCeremony(ctx context.Context, hash, purpose string, now time.Time) (domain.Ceremony, error) {
	var it ceremonyItem
	err := s.table(schema.PortalTokens).Delete("token_hash", hash).
		If("kind = ? AND purpose = ? AND ends_at > ?", portalKindCeremony, purpose, fmtTime(now)).
		OldValue(ctx, &it)
	switch {
	case isCondFailed(err) || errors.Is(err, dynamo.ErrNotFound):
		return domain.Ceremony{}, domain.Errorf(domain.ECodeNotFound, "No such ceremony: it was finished already, expired, or never begun.")
	case err != nil:
		return domain.Ceremony{}, fmt.Errorf("take ceremony: %w", err)
	}
	return domain.Ceremony{Hash: it.TokenHash, Purpose: it.Purpose, AccountID: it.AccountID, OperatorID: it.OperatorID,
		Session: it.Session, Digest: it.Digest, CreatedAt: parseTime(it.CreatedAt), ExpiresAt: parseTime(it.EndsAt)}, nil
}

// Ceremony reads the ceremony of the challenge without taking it: a
// signature checked when it is given is consumed only later, in the
// transaction that applies what it signs. not_found: no ceremony under
// this hash (never begun, taken, or gone with its TTL). Whether it is
// past its end is the caller's to judge.
func (s *Store) Ceremony(ctx context.Context, hash string) (domain.Ceremony, error) {
	var it ceremonyItem
	err := s.table(schema.PortalTokens).Get("token_hash", hash).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.Kind != portalKindCeremony):
		return domain.Ceremony{}, domain.Errorf(domain.ECodeNotFound, "No such ceremony.")
	case err != nil:
		return domain.Ceremony{}, fmt.Errorf("get ceremony: %w", err)
	}
	return domain.Ceremony{Hash: it.TokenHash, Purpose: it.Purpose, AccountID: it.AccountID, OperatorID: it.OperatorID,
		Session: it.Session, Digest: it.Digest, CreatedAt: parseTime(it.CreatedAt), ExpiresAt: parseTime(it.EndsAt)}, nil
}
