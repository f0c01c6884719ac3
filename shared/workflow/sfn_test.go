package workflow_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/evs-kyb/evs/shared/workflow"
)

const machine = "arn:aws:states:eu-west-1:123456789012:stateMachine:evs-decision"

// client is Step Functions at the edge: it records what it was asked and
// answers with err, or with out.
type client struct {
	err      error
	describe *sfn.DescribeExecutionOutput
	started  *sfn.StartExecutionInput
	success  *sfn.SendTaskSuccessInput
	failure  *sfn.SendTaskFailureInput
}

func (c *client) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	c.started = in
	if c.err != nil {
		return nil, c.err
	}
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(strings.Replace(machine, ":stateMachine:", ":execution:", 1) + ":" + aws.ToString(in.Name))}, nil
}

func (c *client) DescribeExecution(context.Context, *sfn.DescribeExecutionInput, ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	return c.describe, c.err
}

func (c *client) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	c.success = in
	return &sfn.SendTaskSuccessOutput{}, c.err
}

func (c *client) SendTaskFailure(_ context.Context, in *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	c.failure = in
	return &sfn.SendTaskFailureOutput{}, c.err
}

func TestSFN(t *testing.T) {
	ctx := context.Background()
	exec := "arn:aws:states:eu-west-1:123456789012:execution:evs-decision:web-ABC"
	for _, tc := range []struct {
		name  string
		err   error
		call  func(*workflow.SFN, *client) error
		want  error // errors.Is; nil: no error
		check func(*testing.T, *client)
	}{
		{name: "start", call: func(s *workflow.SFN, _ *client) error {
			arn, err := s.Start(ctx, "web-ABC", []byte(`{"action":"approve"}`))
			if arn != exec {
				t.Errorf("arn %q", arn)
			}
			return err
		}, check: func(t *testing.T, c *client) {
			if aws.ToString(c.started.StateMachineArn) != machine || aws.ToString(c.started.Name) != "web-ABC" || aws.ToString(c.started.Input) != `{"action":"approve"}` {
				t.Errorf("started %+v", c.started)
			}
		}},
		{name: "start a name used before", err: &types.ExecutionAlreadyExists{Message: aws.String("exists")},
			call: func(s *workflow.SFN, _ *client) error { _, err := s.Start(ctx, "web-ABC", []byte(`{}`)); return err }, want: workflow.ErrExists},
		{name: "describe", call: func(s *workflow.SFN, c *client) error {
			c.describe = &sfn.DescribeExecutionOutput{ExecutionArn: aws.String(exec), Status: types.ExecutionStatusFailed,
				Error: aws.String("StaleView"), Cause: aws.String("the dossier changed"), Input: aws.String(`{"account_id":1}`)}
			x, err := s.Describe(ctx, exec)
			if x.Status != workflow.StatusFailed || x.Error != "StaleView" || x.Cause != "the dossier changed" || string(x.Input) != `{"account_id":1}` || x.Output != nil || !x.Done() {
				t.Errorf("execution %+v", x)
			}
			return err
		}},
		{name: "describe nothing", err: &types.ExecutionDoesNotExist{Message: aws.String("no")},
			call: func(s *workflow.SFN, _ *client) error { _, err := s.Describe(ctx, exec); return err }, want: workflow.ErrNotFound},
		{name: "approve", call: func(s *workflow.SFN, _ *client) error { return s.Approve(ctx, "token-1", []byte(`{"signature":{}}`)) },
			check: func(t *testing.T, c *client) {
				if aws.ToString(c.success.TaskToken) != "token-1" || aws.ToString(c.success.Output) != `{"signature":{}}` {
					t.Errorf("success %+v", c.success)
				}
			}},
		{name: "approve a task that timed out", err: &types.TaskTimedOut{Message: aws.String("late")},
			call: func(s *workflow.SFN, _ *client) error { return s.Approve(ctx, "token-1", []byte(`{}`)) }, want: workflow.ErrTaskGone},
		{name: "refuse", call: func(s *workflow.SFN, _ *client) error { return s.Refuse(ctx, "token-2", strings.Repeat("é", 40000)) },
			check: func(t *testing.T, c *client) {
				if aws.ToString(c.failure.Error) != workflow.RefusedError || len([]rune(aws.ToString(c.failure.Cause))) != 32768 {
					t.Errorf("failure error %q, cause of %d characters", aws.ToString(c.failure.Error), len([]rune(aws.ToString(c.failure.Cause))))
				}
			}},
		{name: "refuse a task answered", err: &types.TaskDoesNotExist{Message: aws.String("gone")},
			call: func(s *workflow.SFN, _ *client) error { return s.Refuse(ctx, "token-2", "no") }, want: workflow.ErrTaskGone},
		{name: "a fault stays a fault", err: errors.New("throttled"),
			call: func(s *workflow.SFN, _ *client) error { return s.Refuse(ctx, "token-secret", "no") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{err: tc.err}
			s := &workflow.SFN{Client: c, StateMachineARN: machine}
			err := tc.call(s, c)
			switch {
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("err = %v, want %v", err, tc.want)
			case tc.want == nil && tc.err == nil && err != nil:
				t.Errorf("err = %v", err)
			case tc.err != nil && tc.want == nil && (err == nil || errors.Is(err, workflow.ErrTaskGone)):
				t.Errorf("a fault became %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "token") {
				t.Errorf("the error names the task token: %v", err)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
	if got := (&workflow.SFN{StateMachineARN: machine}).ExecutionARN("web-ABC"); got != exec {
		t.Errorf("ExecutionARN = %q", got)
	}
}
