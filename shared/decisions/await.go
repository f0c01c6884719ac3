package decisions

import (
	"context"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// ApprovalWait is how long a four-eyes decision waits for its second
// operator: the workflow's AwaitSecondApproval timeout (259,200 s).
const ApprovalWait = 72 * time.Hour

// Await records a four-eyes decision as waiting for its second operator,
// with the task token their answer completes: the console lists it under
// "Waiting for a second operator". The maker's identity was established by
// Validate and is checked again by Apply; this records what it is.
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
	who, err := s.identify(ctx, req, st, true)
	if err != nil {
		return err
	}
	now := s.Clock.Now()
	return s.Store.PutPendingApproval(ctx, domain.PendingApproval{
		AccountID: req.AccountID, ActionID: req.ActionID, ReviewID: req.ReviewID, EntityID: st.entity.ID, Action: req.Action,
		MakerID: st.operator.ID, MakerName: st.operator.Name, Reason: req.Reason,
		Document: string(DecisionDocument(req)), Digest: Digest(req), Seen: req.Seen, Identity: who.identity,
		TaskToken: taskToken, ExecutionARN: executionARN, CreatedAt: now, ExpiresAt: now.Add(ApprovalWait),
	})
}
