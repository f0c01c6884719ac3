package decisions

import (
	"context"
	"errors"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// ApprovalWait is how long a four-eyes decision waits for its second
// operator: the workflow's AwaitSecondApproval timeout (259,200 s).
const ApprovalWait = 72 * time.Hour

// Await records a four-eyes decision as waiting for its second operator,
// with the task token their answer completes: the console lists it under
// "Waiting for a second operator". It checks the maker's signature again,
// and spends it in the same write: its ceremony lives minutes
// (passkey.SigningTTL) and the wait days, so the ceremony is taken and
// the counter moved now, conditioned on the value read, and the pending
// approval keeps the nonce Apply checks the signature with.
func (s *Service) Await(ctx context.Context, req Request, taskToken, executionARN string) error {
	if err := CheckRequest(req); err != nil {
		return err
	}
	if taskToken == "" {
		return domain.Invalid("task_token", "is required to wait for a second operator")
	}
	st, err := s.load(ctx, req)
	if err != nil {
		return err
	}
	who, err := s.identify(ctx, req, st, nil)
	if err != nil {
		return err
	}
	now := s.Clock.Now()
	p := domain.PendingApproval{
		AccountID: req.AccountID, ActionID: req.ActionID, ReviewID: req.ReviewID, EntityID: st.entity.ID, Action: req.Action,
		MakerID: st.operator.ID, MakerName: st.operator.Name, Reason: req.Reason,
		Document: string(DecisionDocument(req)), Digest: Digest(req), Seen: req.Seen, Identity: who.identity,
		TaskToken: taskToken, ExecutionARN: executionARN, CreatedAt: now, ExpiresAt: now.Add(ApprovalWait),
	}
	var maker *domain.SignatureUse
	if who.maker != nil {
		p.MakerNonce = who.maker.Nonce
		maker = new(use(*who.maker, false))
	}
	err = s.Store.AwaitApproval(ctx, p, maker)
	if errors.Is(err, domain.ErrSignatureUsed) {
		return signatureUsed(req)
	}
	return err
}
