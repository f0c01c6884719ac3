// Package workflow is the decision state machine (Step Functions) as the
// operator console drives it: start a decision, follow it, and answer a
// four-eyes decision's approval task. The console never writes a decision
// itself; it hands the signed request to the workflow, which validates and
// applies it through the decision function.
package workflow

import (
	"context"
	"encoding/json"
	"errors"
)

// Execution statuses, as Step Functions names them.
const (
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
	StatusTimedOut  = "TIMED_OUT"
	StatusAborted   = "ABORTED"
)

// RefusedError is the error a refused approval task fails with; the state
// machine's AwaitSecondApproval catches it into its SecondApprovalRefused
// state.
const RefusedError = "SecondApprovalRefused"

// Execution is one run of the decision state machine as the console
// follows it.
type Execution struct {
	ARN string
	// Status is one of the Status constants.
	Status string
	// Error and Cause are a failed execution's (the Fail state's name,
	// StaleView for one, and the decision function's refusal in words).
	Error, Cause string
	// Input is the request the execution was started with: the console
	// reads its account from it before showing anything of the execution.
	Input json.RawMessage
	// Output is a succeeded execution's result (the review as decided).
	Output json.RawMessage
}

// Done reports whether the execution has ended, one way or another.
func (e Execution) Done() bool { return e.Status != StatusRunning }

// Errors the console tells apart.
var (
	// ErrExists: an execution of that name ran already with another input
	// (or ended): a name, the action id, is used once.
	ErrExists = errors.New("workflow: an execution of this name exists already")
	// ErrNotFound: no execution of that name or ARN.
	ErrNotFound = errors.New("workflow: no such execution")
	// ErrTaskGone: the approval task's token is no longer waited on (the
	// task was answered, timed out, or its execution ended).
	ErrTaskGone = errors.New("workflow: the approval task is no longer waiting")
)

// Workflow starts and follows decisions. SFN implements it over Step
// Functions; make local wires an implementation of its own.
type Workflow interface {
	// Start runs the state machine on input (a decisions.Request as
	// JSON), the execution named by the action id, and returns its ARN.
	// Started again with the same name and input while it runs, it
	// answers the same ARN; ErrExists otherwise.
	Start(ctx context.Context, name string, input []byte) (arn string, err error)
	// ExecutionARN is the ARN an execution of that name has (or would
	// have): the console's pages name executions by their name alone.
	ExecutionARN(name string) string
	// Describe is the execution as it stands; ErrNotFound.
	Describe(ctx context.Context, arn string) (Execution, error)
	// Approve answers an approval task with the second operator's signed
	// approval (SendTaskSuccess); ErrTaskGone.
	Approve(ctx context.Context, taskToken string, output []byte) error
	// Refuse fails an approval task (SendTaskFailure) with RefusedError
	// and the cause; ErrTaskGone.
	Refuse(ctx context.Context, taskToken, cause string) error
}
