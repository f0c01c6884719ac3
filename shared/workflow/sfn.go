package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// Client is what SFN calls of Step Functions (*sfn.Client has it).
type Client interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, opts ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
}

// SFN is the Workflow over one Step Functions state machine (a standard
// one: the approval task waits for its token).
type SFN struct {
	Client Client
	// StateMachineARN is the decision state machine's ARN.
	StateMachineARN string
}

var _ Workflow = (*SFN)(nil)

// maxCause is SendTaskFailure's bound on a cause, in characters.
const maxCause = 32768

// Start starts the execution named name with input.
func (s *SFN) Start(ctx context.Context, name string, input []byte) (string, error) {
	out, err := s.Client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(s.StateMachineARN), Name: aws.String(name), Input: aws.String(string(input)),
	})
	var exists *types.ExecutionAlreadyExists
	switch {
	case errors.As(err, &exists):
		return "", fmt.Errorf("start execution %s: %w", name, ErrExists)
	case err != nil:
		return "", fmt.Errorf("start execution %s: %w", name, err)
	}
	return aws.ToString(out.ExecutionArn), nil
}

// ExecutionARN is the state machine's ARN with its resource type
// "stateMachine" turned into "execution" and the name appended: the ARN
// Step Functions gives a standard state machine's executions.
func (s *SFN) ExecutionARN(name string) string {
	return strings.Replace(s.StateMachineARN, ":stateMachine:", ":execution:", 1) + ":" + name
}

// Describe reads the execution.
func (s *SFN) Describe(ctx context.Context, arn string) (Execution, error) {
	out, err := s.Client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	var missing *types.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return Execution{}, fmt.Errorf("describe execution %s: %w", arn, ErrNotFound)
	case err != nil:
		return Execution{}, fmt.Errorf("describe execution %s: %w", arn, err)
	}
	return Execution{
		ARN: aws.ToString(out.ExecutionArn), Status: string(out.Status),
		Error: aws.ToString(out.Error), Cause: aws.ToString(out.Cause),
		Input: raw(out.Input), Output: raw(out.Output),
	}, nil
}

// Approve completes the approval task with output.
func (s *SFN) Approve(ctx context.Context, taskToken string, output []byte) error {
	_, err := s.Client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(taskToken), Output: aws.String(string(output))})
	return taskErr("approve", err)
}

// Refuse fails the approval task with RefusedError and the cause (cut to
// what Step Functions takes).
func (s *SFN) Refuse(ctx context.Context, taskToken, cause string) error {
	_, err := s.Client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{
		TaskToken: aws.String(taskToken), Error: aws.String(RefusedError), Cause: aws.String(truncate(cause, maxCause)),
	})
	return taskErr("refuse", err)
}

// taskErr names a task that is no longer waited on ErrTaskGone. The token
// itself is never part of an error: errors end up in logs.
func taskErr(what string, err error) error {
	var gone *types.TaskDoesNotExist
	var timedOut *types.TaskTimedOut
	switch {
	case err == nil:
		return nil
	case errors.As(err, &gone), errors.As(err, &timedOut):
		return fmt.Errorf("%s approval task: %w", what, ErrTaskGone)
	}
	return fmt.Errorf("%s approval task: %w", what, err)
}

func raw(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
