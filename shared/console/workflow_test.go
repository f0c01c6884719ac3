package console_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/workflow"
)

// fakeWorkflow is the decision state machine at the edge: it runs the
// real decision handler (HandleDocument) in-process, phase by phase, as
// the state machine's tasks would, over the real store. Start returns once
// the execution ended or waits for its second operator.
type fakeWorkflow struct {
	decide *decisions.Service

	mu      sync.Mutex
	execs   map[string]*workflow.Execution // by ARN
	waiting map[string]string              // task token → ARN
	tokens  []string                       // every task token issued
}

var _ workflow.Workflow = (*fakeWorkflow)(nil)

func newFakeWorkflow(decide *decisions.Service) *fakeWorkflow {
	return &fakeWorkflow{decide: decide, execs: map[string]*workflow.Execution{}, waiting: map[string]string{}}
}

func (f *fakeWorkflow) ExecutionARN(name string) string {
	return "arn:aws:states:local:000000000000:execution:decision:" + name
}

func (f *fakeWorkflow) Start(ctx context.Context, name string, input []byte) (string, error) {
	arn := f.ExecutionARN(name)
	f.mu.Lock()
	if prev, ok := f.execs[arn]; ok {
		f.mu.Unlock()
		if prev.Status == workflow.StatusRunning && bytes.Equal(prev.Input, input) {
			return arn, nil
		}
		return "", workflow.ErrExists
	}
	x := &workflow.Execution{ARN: arn, Status: workflow.StatusRunning, Input: bytes.Clone(input)}
	f.execs[arn] = x
	f.mu.Unlock()

	out, err := f.task(ctx, decisions.PhaseValidate, name, input, "", nil)
	if err != nil {
		f.fail(x, err)
		return arn, nil
	}
	if out.RequiresSecondApproval {
		token := "task_" + rand.Text() + rand.Text()
		f.mu.Lock()
		f.waiting[token] = arn
		f.tokens = append(f.tokens, token)
		f.mu.Unlock()
		if _, err := f.task(ctx, decisions.PhaseAwait, name, input, token, nil); err != nil {
			f.fail(x, err)
		}
		return arn, nil
	}
	f.apply(ctx, x, name, nil)
	return arn, nil
}

func (f *fakeWorkflow) Describe(_ context.Context, arn string) (workflow.Execution, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	x, ok := f.execs[arn]
	if !ok {
		return workflow.Execution{}, workflow.ErrNotFound
	}
	return *x, nil
}

func (f *fakeWorkflow) Approve(ctx context.Context, token string, output []byte) error {
	x, name, err := f.take(token)
	if err != nil {
		return err
	}
	f.apply(ctx, x, name, output)
	return nil
}

func (f *fakeWorkflow) Refuse(_ context.Context, token, cause string) error {
	x, _, err := f.take(token)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	x.Status, x.Error, x.Cause = workflow.StatusFailed, workflow.RefusedError, cause
	return nil
}

// take ends the wait of the task token.
func (f *fakeWorkflow) take(token string) (*workflow.Execution, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	arn, ok := f.waiting[token]
	if !ok {
		return nil, "", workflow.ErrTaskGone
	}
	delete(f.waiting, token)
	x := f.execs[arn]
	var req decisions.Request
	json.Unmarshal(x.Input, &req)
	return x, req.ActionID, nil
}

// apply runs the Apply task, with the second operator's answer if any.
func (f *fakeWorkflow) apply(ctx context.Context, x *workflow.Execution, name string, approval []byte) {
	out, err := f.task(ctx, decisions.PhaseApply, name, x.Input, "", approval)
	if err != nil {
		f.fail(x, err)
		return
	}
	b, _ := json.Marshal(out.Review)
	f.mu.Lock()
	defer f.mu.Unlock()
	x.Status, x.Output = workflow.StatusSucceeded, b
}

// task is one Lambda task's payload as the state machine builds it,
// handed to the decision handler.
func (f *fakeWorkflow) task(ctx context.Context, phase, name string, input []byte, token string, approval []byte) (decisions.TaskOutput, error) {
	doc := map[string]any{"phase": phase, "request": json.RawMessage(input), "execution_id": name, "execution_arn": f.ExecutionARN(name)}
	if token != "" {
		doc["task_token"] = token
	}
	if approval != nil {
		doc["approval"] = json.RawMessage(approval)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return decisions.TaskOutput{}, err
	}
	return f.decide.HandleDocument(ctx, b)
}

// fail ends the execution as its Catch clauses would: a named refusal in
// its Fail state, anything else DecisionFailed.
func (f *fakeWorkflow) fail(x *workflow.Execution, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	x.Status, x.Error, x.Cause = workflow.StatusFailed, "DecisionFailed", err.Error()
	var refused messages.InvokeResponse_Error
	if errors.As(err, &refused) {
		x.Error, x.Cause = refused.Type, refused.Message
	}
}

// issued lists the task tokens handed out.
func (f *fakeWorkflow) issued() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

// inputOf is the request an execution was started with.
func (f *fakeWorkflow) inputOf(name string) (decisions.Request, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	x, ok := f.execs[f.ExecutionARN(name)]
	if !ok {
		return decisions.Request{}, false
	}
	var req decisions.Request
	err := json.Unmarshal(x.Input, &req)
	return req, err == nil
}
