package store

import (
	"context"
	"fmt"
	"github.com/guregu/dynamo/v2"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// The portal_tokens table holds two kinds of item under one key, the
// SHA-256 of a token: sign-in links (here) and sessions (portal_sessions.go).
// Every read and write names its kind, so a token of one kind never acts as
// the other.
const (
	portalKindLink    = "link"
	portalKindSession = "session"
)

// portalLinkKept is how long a link stays stored past its end, used or not:
// opening it in that time says "used" or "expired" rather than "not valid".
const portalLinkKept = 24 * time.Hour

type portalLinkItem struct {
	TokenHash  string `dynamo:"token_hash,hash"`
	Kind       string `dynamo:"kind"`
	AccountID  int64  `dynamo:"account_id"`
	OperatorID int64  `dynamo:"operator_id"`
	CreatedAt  string `dynamo:"created_at"`
	// EndsAt is when the link stops signing in (domain.TimeLayout, so a
	// condition compares it as a string).
	EndsAt string `dynamo:"ends_at"`
	UsedAt string `dynamo:"used_at,omitempty"`
	// ExpiresAt is the TTL attribute (Unix seconds).
	ExpiresAt int64 `dynamo:"expires_at"`
}

func newPortalLinkItem(l domain.PortalLink) portalLinkItem {
	return portalLinkItem{TokenHash: l.Hash, Kind: portalKindLink, AccountID: l.AccountID, OperatorID: l.OperatorID,
		CreatedAt: fmtTime(l.CreatedAt), EndsAt: fmtTime(l.ExpiresAt), UsedAt: fmtOptTime(l.UsedAt),
		ExpiresAt: l.ExpiresAt.Add(portalLinkKept).Unix()}
}

func (it portalLinkItem) domain() domain.PortalLink {
	return domain.PortalLink{Hash: it.TokenHash, AccountID: it.AccountID, OperatorID: it.OperatorID,
		CreatedAt: parseTime(it.CreatedAt), ExpiresAt: parseTime(it.EndsAt), UsedAt: parseOptTime(it.UsedAt)}
}

// CreatePortalLink stores a new sign-in link (its hash only) with the audit
// record of its minting, in one transaction; domain.ErrDuplicateAction if
// the action id was applied before.
func (s *Store) CreatePortalLink(ctx context.Context, l domain.PortalLink, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(s.table(schema.PortalTokens).Put(newPortalLinkItem(l)).If("attribute_not_exists(token_hash)")).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 1):
		return domain.ErrDuplicateAction
	case cancelledAt(err, 0):
		// Two random 256-bit tokens with one hash: never, short of a bug.
		return fmt.Errorf("create portal link: the token hash is taken")
	}
	return wrap(err, "create portal link")
}

// PortalLink returns the link whose token hashes to hash, used or not,
// expired or not, as long as it is stored.
func (s *Store) PortalLink(ctx context.Context, hash string) (domain.PortalLink, error) {
	var it portalLinkItem
	err := s.table(schema.PortalTokens).Get("token_hash", hash).Consistent(true).One(ctx, &it)
	if err == nil && it.Kind != portalKindLink {
		err = domain.Errorf(domain.ECodeNotFound, "Sign-in link not found.")
	}
	if err != nil {
		return domain.PortalLink{}, wrap(notFound(err, "Sign-in link"), "get portal link")
	}
	return it.domain(), nil
}

// RedeemPortalLink uses the link once and starts the session s, in one
// transaction: the link is marked used only if it is still unused and
// unexpired at s.StartedAt (domain.ErrStale otherwise, or when it is gone:
// read it again to say which); the session is created; the operator must
// still be active (validation_failed on operator otherwise); the audit
// record of the sign-in is written. Of two redemptions of one link at
// once, one starts a session and the other gets domain.ErrStale.
func (s *Store) RedeemPortalLink(ctx context.Context, linkHash string, sess domain.PortalSession, audit domain.AuditRecord) error {
	now := fmtTime(sess.StartedAt)
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Update(s.table(schema.PortalTokens).Update("token_hash", linkHash).
				Set("used_at", now).
				If("'kind' = ? AND account_id = ? AND operator_id = ? AND attribute_not_exists(used_at) AND ends_at > ?",
					portalKindLink, sess.AccountID, sess.OperatorID, now)).
			Put(s.table(schema.PortalTokens).Put(newPortalSessionItem(sess)).If("attribute_not_exists(token_hash)")).
			Check(s.table(schema.Accounts).Check("account_id", sess.AccountID).Range("sk", operatorSK(sess.OperatorID)).
				If("attribute_exists(operator_id) AND attribute_not_exists(disabled_at)")).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 0):
		return domain.ErrStale
	case cancelledAt(err, 2):
		return domain.Invalid("operator", "is disabled")
	case cancelledAt(err, 1), cancelledAt(err, 3):
		// A fresh random session token or the sign-in's action id taken:
		// never, short of a bug.
		return fmt.Errorf("redeem portal link: the session or its audit record exists already")
	}
	return wrap(err, "redeem portal link")
}
