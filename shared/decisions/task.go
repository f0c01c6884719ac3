package decisions

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Phases of the decision workflow a task runs.
const (
	PhaseValidate = "validate"
	PhaseApply    = "apply"
)

// TaskInput is the payload the state machine hands the decision function:
// the phase, the execution's input as the request, and the execution's id,
// which names the action when the request does not.
type TaskInput struct {
	Phase       string  `json:"phase"`
	Request     Request `json:"request"`
	ExecutionID string  `json:"execution_id,omitempty"`
}

// TaskOutput is what a task returns to the state machine.
type TaskOutput struct {
	Phase                  string     `json:"phase"`
	RequiresSecondApproval bool       `json:"requires_second_approval"`
	Request                Request    `json:"request"`
	Review                 *ReviewOut `json:"review,omitempty"`
}

// ReviewOut is a review as the workflow and the command line show it.
type ReviewOut struct {
	ID               int64   `json:"id"`
	EntityID         int64   `json:"entity_id"`
	Purpose          string  `json:"purpose"`
	Status           string  `json:"status"`
	Escalation       *string `json:"escalation"`
	Outcome          *string `json:"outcome"`
	OutcomeReason    *string `json:"outcome_reason"`
	AssignedUserID   *int64  `json:"assigned_user_id"`
	AssignedUserName *string `json:"assigned_user_name"`
	ChecksCount      int     `json:"checks_count"`
	ChecksQueuedAt   *string `json:"checks_queued_at"`
	StartedAt        *string `json:"started_at"`
	CompletedAt      *string `json:"completed_at"`
	UpdatedAt        string  `json:"updated_at"`
	Version          int64   `json:"version"`
}

// NewReviewOut renders a review.
func NewReviewOut(r domain.Review) *ReviewOut {
	out := &ReviewOut{
		ID: r.ID, EntityID: r.EntityID, Purpose: string(r.Purpose), Status: string(r.Status), Escalation: r.Escalation,
		Outcome: r.Outcome, OutcomeReason: r.OutcomeReason, AssignedUserID: r.AssignedUserID, AssignedUserName: r.AssignedUserName,
		ChecksCount: r.ChecksCount, UpdatedAt: domain.FormatTime(r.UpdatedAt), Version: r.Version,
	}
	out.ChecksQueuedAt = fmtOpt(r.ChecksQueuedAt)
	out.StartedAt = fmtOpt(r.StartedAt)
	out.CompletedAt = fmtOpt(r.CompletedAt)
	return out
}

// Handle is the decision function's Lambda handler. A refused action fails
// the task with its named failure (IllegalTransition, Forbidden, NotFound,
// InvalidRequest, Conflict, SecondApproverRequired, StaleView), which the state machine
// maps to a Fail state an operator can read in the console; a fault fails
// with its own type, which ends in DecisionFailed (only Lambda's own service
// errors are retried).
func (s *Service) Handle(ctx context.Context, in TaskInput) (TaskOutput, error) {
	req := in.Request
	if req.ActionID == "" {
		req.ActionID = in.ExecutionID
	}
	log := logging.From(ctx).With("action", req.Action, "phase", in.Phase, "account_id", req.AccountID, "review_id", req.ReviewID, "action_id", req.ActionID)
	out := TaskOutput{Phase: in.Phase, Request: req}
	var err error
	switch in.Phase {
	case PhaseValidate:
		var v Validation
		if v, err = s.Validate(ctx, req); err == nil {
			out.RequiresSecondApproval = v.RequiresSecondApproval
		}
	case PhaseApply:
		var r domain.Review
		if r, err = s.Apply(ctx, req); err == nil {
			out.Review = NewReviewOut(r)
		}
	default:
		err = domain.Errorf(domain.ECodeBadRequest, "phase must be %q or %q", PhaseValidate, PhaseApply)
	}
	if err != nil {
		if name := domain.FailureName(err); name != "" {
			log.Info("decision refused", "failure", name, "reason", err.Error())
			return TaskOutput{}, messages.InvokeResponse_Error{Type: name, Message: domain.Refusal(err)}
		}
		log.Error("decision failed", "error", err.Error())
		return TaskOutput{}, fmt.Errorf("decision %s: %w", req.Action, err)
	}
	log.Info("decision", "requires_second_approval", out.RequiresSecondApproval)
	return out, nil
}

func fmtOpt(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := domain.FormatTime(*t)
	return &s
}
