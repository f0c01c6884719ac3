package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/workflow"
)

// stageWorkflow is the console's decision workflow on this machine: the
// local Step Functions stand-in (stageAPI), called in process. Executions
// run the real ASL in aws-local-stepfunctions, their tasks the decision
// function's own handler; an approval waits until the console answers it.
type stageWorkflow struct{ api *stageAPI }

var _ workflow.Workflow = stageWorkflow{}

func (w stageWorkflow) Start(_ context.Context, name string, input []byte) (string, error) {
	x, err := w.api.startExecution(name, string(input))
	return x.arn, err
}

func (w stageWorkflow) ExecutionARN(name string) string { return executionARN(name) }

func (w stageWorkflow) Describe(_ context.Context, arn string) (workflow.Execution, error) {
	x, ok := w.api.execution(arn)
	if !ok {
		return workflow.Execution{}, workflow.ErrNotFound
	}
	e := workflow.Execution{ARN: x.arn, Status: workflow.StatusRunning, Input: json.RawMessage(x.input)}
	switch {
	case x.runErr != nil:
		e.Status, e.Error, e.Cause = workflow.StatusFailed, "States.Runtime", x.runErr.Error()
	case x.result != nil && x.result.Status == workflow.StatusSucceeded:
		e.Status, e.Output = workflow.StatusSucceeded, x.result.Output
	case x.result != nil:
		e.Status, e.Error, e.Cause = workflow.StatusFailed, x.result.Error, x.result.Cause
	}
	return e, nil
}

func (w stageWorkflow) Approve(_ context.Context, token string, output []byte) error {
	return w.api.answerTask(token, approvalAnswer{Output: output})
}

func (w stageWorkflow) Refuse(_ context.Context, token, cause string) error {
	return w.api.answerTask(token, approvalAnswer{Error: workflow.RefusedError, Cause: cause})
}

// serveStageAPI serves api on a loopback port of its own, for run.mjs to
// call the decision function and wait for approvals; it stops with ctx.
func serveStageAPI(ctx context.Context, api *stageAPI) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("the local decision workflow: %w", err)
	}
	api.base = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return nil
}
