package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Four-eyes decisions waiting for their second operator live in the
// accounts table under APPROVAL#<action id>: an account's are one query,
// and there are only ever a handful.
const skApprovalPrefix = "APPROVAL#"

func approvalSK(actionID string) string { return skApprovalPrefix + actionID }

type approvalItem struct {
	AccountID    int64  `dynamo:"account_id,hash"`
	SK           string `dynamo:"sk,range"`
	ActionID     string `dynamo:"action_id"`
	ReviewID     int64  `dynamo:"review_id"`
	EntityID     int64  `dynamo:"entity_id"`
	Action       string `dynamo:"action"`
	MakerID      int64  `dynamo:"maker_id"`
	MakerName    string `dynamo:"maker_name"`
	Reason       string `dynamo:"reason,omitempty"`
	Document     string `dynamo:"document"`
	Digest       string `dynamo:"digest"`
	Seen         string `dynamo:"seen,omitempty"`
	Identity     string `dynamo:"identity"`
	MakerNonce   []byte `dynamo:"maker_nonce,omitempty"`
	TaskToken    string `dynamo:"task_token"`
	ExecutionARN string `dynamo:"execution_arn,omitempty"`
	CreatedAt    string `dynamo:"created_at"`
	EndsAt       string `dynamo:"ends_at"`
}

func (it approvalItem) domain() domain.PendingApproval {
	return domain.PendingApproval{AccountID: it.AccountID, ActionID: it.ActionID, ReviewID: it.ReviewID, EntityID: it.EntityID,
		Action: domain.Action(it.Action), MakerID: it.MakerID, MakerName: it.MakerName, Reason: it.Reason, Document: it.Document,
		Digest: it.Digest, Seen: it.Seen, Identity: domain.Identity(it.Identity), MakerNonce: it.MakerNonce, TaskToken: it.TaskToken, ExecutionARN: it.ExecutionARN,
		CreatedAt: parseTime(it.CreatedAt), ExpiresAt: parseTime(it.EndsAt)}
}

// AwaitApproval records a decision waiting for its second operator, and
// spends the maker's signature (maker; nil for a declared decision) in the
// same transaction: its ceremony taken within its lifetime, its passkey's
// counter moved on from the value read. The ceremony lives minutes and
// the wait days: the pending approval keeps what Apply checks the
// signature with (MakerNonce), and the decision's transaction takes it.
// domain.ErrSignatureUsed when the ceremony is gone or ended or the
// counter moved meanwhile: nothing is written then. The same action id
// put again replaces it: the newest task token is the one the workflow
// waits on.
func (s *Store) AwaitApproval(ctx context.Context, p domain.PendingApproval, maker *domain.SignatureUse) error {
	it := approvalItem{AccountID: p.AccountID, SK: approvalSK(p.ActionID), ActionID: p.ActionID, ReviewID: p.ReviewID, EntityID: p.EntityID,
		Action: string(p.Action), MakerID: p.MakerID, MakerName: p.MakerName, Reason: p.Reason, Document: p.Document, Digest: p.Digest,
		Seen: p.Seen, Identity: string(p.Identity), MakerNonce: p.MakerNonce, TaskToken: p.TaskToken, ExecutionARN: p.ExecutionARN,
		CreatedAt: fmtTime(p.CreatedAt), EndsAt: fmtTime(p.ExpiresAt)}
	put := s.table(schema.Accounts).Put(it)
	if maker == nil {
		return wrap(put.Run(ctx), "put pending approval %s", p.ActionID)
	}
	tx := s.db.WriteTx().Put(put)
	s.spendWrites(tx, *maker, p.CreatedAt)
	err := tx.Run(ctx)
	if signatureRefused(err, 2) {
		return domain.ErrSignatureUsed
	}
	return wrap(err, "put pending approval %s", p.ActionID)
}

// PendingApprovals lists an account's decisions waiting for a second
// operator at now, oldest first; those whose wait ended are left out.
func (s *Store) PendingApprovals(ctx context.Context, accountID int64, now time.Time) ([]domain.PendingApproval, error) {
	var items []approvalItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.BeginsWith, skApprovalPrefix).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list pending approvals: %w", err)
	}
	out := make([]domain.PendingApproval, 0, len(items))
	for _, it := range items {
		if p := it.domain(); now.Before(p.ExpiresAt) {
			out = append(out, p)
		}
	}
	// Oldest first, as the queue; stable, so equal times keep key order.
	slices.SortStableFunc(out, func(a, b domain.PendingApproval) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// PendingApproval reads one. not_found: none waits under this action id.
func (s *Store) PendingApproval(ctx context.Context, accountID int64, actionID string) (domain.PendingApproval, error) {
	var it approvalItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, approvalSK(actionID)).
		Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return domain.PendingApproval{}, domain.Errorf(domain.ECodeNotFound, "No decision %s is waiting for a second operator.", actionID)
	case err != nil:
		return domain.PendingApproval{}, fmt.Errorf("get pending approval: %w", err)
	}
	return it.domain(), nil
}

// DeletePendingApproval removes one answered (refused); deleting one gone
// is no error. An approved one goes with its decision's transaction.
func (s *Store) DeletePendingApproval(ctx context.Context, accountID int64, actionID string) error {
	err := s.table(schema.Accounts).Delete("account_id", accountID).Range("sk", approvalSK(actionID)).Run(ctx)
	return wrap(err, "delete pending approval %s", actionID)
}
