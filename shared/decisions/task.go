package decisions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// Phases of the decision workflow a task runs.
const (
	PhaseValidate = "validate"
	PhaseApply    = "apply"
	// PhaseAwait records a four-eyes decision as waiting, with the task
	// token its second operator's answer completes.
	PhaseAwait = "await"
)

// TaskInput is the payload the state machine hands the decision function:
// the phase, the execution's input as the request, the second operator's
// answer to the approval task (Apply only; null when none was asked for),
// the execution's name, which names the action when the request does not,
// and its ARN, which the audit record keeps as the actor: CloudTrail's
// StartExecution event for that ARN names the principal who started it.
type TaskInput struct {
	Phase        string          `json:"phase"`
	Request      Request         `json:"request"`
	Approval     json.RawMessage `json:"approval,omitempty"`
	ExecutionID  string          `json:"execution_id,omitempty"`
	ExecutionARN string          `json:"execution_arn,omitempty"`
	// TaskToken is the approval task's token (await only).
	TaskToken string `json:"task_token,omitempty"`
}

// Approval is the second operator's answer to the approval task
// (SendTaskSuccess's output), read strictly: their passkey's assertion over
// the same decision document. SecondApproverID is read only to be refused
// by name (SignatureRequired): an approver who is merely declared is never
// enough.
type Approval struct {
	Signature        *passkey.Assertion `json:"signature,omitempty"`
	SecondApproverID int64              `json:"second_approver_id,omitempty" strict:"id"`
}

// MaxDocument bounds a task's payload; Step Functions' own limit on a
// state's data is 256 KiB.
const MaxDocument = 256 << 10

// HandleDocument is the decision function's Lambda handler: it reads the
// task's payload strictly (strictjson: keys exactly as named, none twice,
// none unknown, every value of its type and range) and runs Handle. A
// document refused is InvalidRequest naming the field; nothing is read or
// written.
func (s *Service) HandleDocument(ctx context.Context, doc json.RawMessage) (TaskOutput, error) {
	var in TaskInput
	if err := readDocument(doc, "", &in); err != nil {
		logging.From(ctx).Info("decision refused", "failure", domain.FailInvalid, "reason", domain.ErrorMessage(err), "fields", domain.ErrorFields(err))
		return TaskOutput{}, messages.InvokeResponse_Error{Type: domain.FailInvalid, Message: domain.Refusal(err)}
	}
	return s.Handle(ctx, in)
}

// Document is a task's payload as the state machine sends it, for callers
// in-process (the command line, tests) that go through HandleDocument.
func Document(in TaskInput) json.RawMessage {
	b, err := json.Marshal(in)
	if err != nil {
		panic(err) // TaskInput holds nothing that cannot be marshalled
	}
	return b
}

// ReadRequest reads a decision's request as an execution's input carries
// it, as the decision function reads it (strictly, readDocument): what a
// page shows of an execution is what the function acted on. A refusal is
// validation_failed naming the field.
func ReadRequest(doc []byte) (Request, error) {
	var req Request
	if err := readDocument(doc, "", &req); err != nil {
		return Request{}, err
	}
	return req, nil
}

// readDocument reads a task payload, or (at "approval") the approval
// answer in it, strictly; a refusal names the field by its whole path.
func readDocument(doc []byte, at string, v any) error {
	if len(doc) > MaxDocument {
		return domain.Invalid("request", fmt.Sprintf("the task's payload is over %d bytes", MaxDocument))
	}
	if err := strictjson.Decode(doc, v); err != nil {
		return strictjson.Doc{Of: "a decision", Whole: "request", At: at}.Invalid(err)
	}
	return nil
}

// TaskOutput is what a task returns to the state machine.
type TaskOutput struct {
	Phase                  string     `json:"phase"`
	RequiresSecondApproval bool       `json:"requires_second_approval"`
	Request                Request    `json:"request"`
	Review                 *ReviewOut `json:"review,omitempty"`
	// Changed is what the applied action changed, as its audit record
	// has it: a review's output alone does not show a verdict on a match
	// or a new risk level, which change the entity.
	Changed map[string]Change `json:"changed,omitempty"`
}

// Change is a field an action changed, as its audit record has it: the
// value before and after (a field the record holds after only, such as a
// verdict's match_id, has a null before; an entity's empty field is "").
type Change struct {
	From any `json:"from"`
	To   any `json:"to"`
}

// Changes reads an audit record's before and after as changes, by field.
func Changes(rec domain.AuditRecord) map[string]Change {
	out := map[string]Change{}
	for k, v := range rec.Before {
		out[k] = Change{From: v, To: rec.After[k]}
	}
	for k, v := range rec.After {
		if _, ok := rec.Before[k]; !ok {
			out[k] = Change{To: v}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
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
	// Who and which invocation, for the audit record: never the request's
	// to say (json:"-").
	req.Actor, req.RequestID = in.ExecutionARN, ""
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		req.RequestID = lc.AwsRequestID
	}
	approval, approvalErr := in.approval()
	log := logging.From(ctx).With("request_id", req.RequestID, "action", logging.Bounded(string(req.Action)), "phase", logging.Bounded(in.Phase),
		"account_id", req.AccountID, "review_id", req.ReviewID, "action_id", logging.Bounded(req.ActionID))
	out := TaskOutput{Phase: in.Phase, Request: req}
	var err error
	switch {
	case approvalErr != nil:
		err = approvalErr
	case in.Phase != PhaseApply && approval != nil:
		err = domain.Invalid("approval", "is the second operator's answer, which only Apply takes")
	case in.Phase != PhaseAwait && in.TaskToken != "":
		err = domain.Invalid("task_token", "is taken by the await phase only")
	case in.Phase == PhaseAwait:
		err = s.Await(ctx, req, in.TaskToken, in.ExecutionARN)
	case in.Phase == PhaseValidate:
		var v Validation
		if v, err = s.Validate(ctx, req); err == nil {
			out.RequiresSecondApproval = v.RequiresSecondApproval
		}
	case in.Phase == PhaseApply:
		var r domain.Review
		var rec domain.AuditRecord
		// The second approval is the approval task's answer, never the
		// request's.
		if r, rec, err = s.Apply(ctx, req, approval); err == nil {
			out.Review, out.Changed = NewReviewOut(r), Changes(rec)
		}
	default:
		err = domain.Errorf(domain.ECodeBadRequest, "phase must be %q, %q or %q", PhaseValidate, PhaseAwait, PhaseApply)
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

// approval reads the second operator's answer: nil when there is none
// (absent, null, or the workflow's {} before any answer; an answer that
// names no one is no approval either, so Apply refuses it where four eyes
// are required).
func (in TaskInput) approval() (*Approval, error) {
	if len(in.Approval) == 0 || string(in.Approval) == "null" {
		return nil, nil
	}
	var a Approval
	if err := readDocument(in.Approval, "approval", &a); err != nil {
		return nil, err
	}
	if a.SecondApproverID == 0 && a.Signature == nil {
		return nil, nil
	}
	return &a, nil
}

func fmtOpt(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := domain.FormatTime(*t)
	return &s
}
