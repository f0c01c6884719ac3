package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/evs-kyb/evs/shared/decisions"
)

// executionName is what Step Functions accepts as an execution's name.
var executionName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// decideOnStage starts one execution of the stage's decision state machine,
// named after the action id (starting the same name again changes
// nothing), and waits for its result: the review when it succeeds, the
// named failure when it is refused. An execution still waiting for a
// second approver when wait runs out is reported, not failed.
func decideOnStage(ctx context.Context, t targetFlags, req decisions.Request, wait time.Duration) error {
	st, err := t.openStage(ctx)
	if err != nil {
		return err
	}
	arn, err := st.output(outputDecisionSM)
	if err != nil {
		return err
	}
	input, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if !executionName.MatchString(req.ActionID) {
		return usageError{"decide: with --stage the action id names the execution: 1 to 80 letters, digits, '-' or '_'"}
	}
	client := st.sfn()
	execARN := strings.Replace(arn, ":stateMachine:", ":execution:", 1) + ":" + req.ActionID
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(arn), Name: aws.String(req.ActionID), Input: aws.String(string(input)),
	})
	var exists *types.ExecutionAlreadyExists
	switch {
	case errors.As(err, &exists):
		// A finished execution of this name: the same action again shows
		// how it ended; another action with a used id is refused.
		prev, derr := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
		if derr != nil {
			return fmt.Errorf("describe execution %s: %w", execARN, derr)
		}
		if aws.ToString(prev.Input) != string(input) {
			return &refusal{Name: "Conflict", Message: fmt.Sprintf("action id %s named another action already: use a new one", req.ActionID)}
		}
		fmt.Fprintf(os.Stderr, "execution %s ran already; its result:\n", execARN)
	case err != nil:
		return fmt.Errorf("start execution %s: %w", req.ActionID, err)
	default:
		execARN = aws.ToString(started.ExecutionArn)
	}
	deadline := time.Now().Add(wait)
	for {
		out, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
		if err != nil {
			return fmt.Errorf("describe execution %s: %w", execARN, err)
		}
		switch out.Status {
		case types.ExecutionStatusSucceeded:
			var res struct {
				Review json.RawMessage `json:"review"`
			}
			body := json.RawMessage(aws.ToString(out.Output))
			if json.Unmarshal(body, &res) == nil && res.Review != nil {
				body = res.Review
			}
			return printJSON(body)
		case types.ExecutionStatusRunning:
			if time.Now().After(deadline) {
				fmt.Fprintf(os.Stderr, "execution %s is still running: if the account requires four eyes it waits for a second operator, "+
					"who finds the task token in the approvals topic's message and answers with `decide confirm --token T --operator ID --stage %s`\n", execARN, st.name)
				return printJSON(map[string]string{"execution": execARN, "status": string(out.Status)})
			}
		default:
			return executionFailure(out)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// executionFailure reports a failed execution as the console shows it: the
// Fail state's error and, for a refusal, the function's message.
func executionFailure(out *sfn.DescribeExecutionOutput) error {
	cause := aws.ToString(out.Cause)
	var doc refusal
	if json.Unmarshal([]byte(cause), &doc) == nil && doc.Message != "" {
		cause = doc.Message
	}
	name := aws.ToString(out.Error)
	if name == "" {
		name = string(out.Status)
	}
	return &refusal{Name: name, Message: cause}
}

// cmdDecideConfirm answers a four-eyes wait on a stage: the second operator
// approves (SendTaskSuccess) or, with --refuse, refuses (SendTaskFailure).
func cmdDecideConfirm(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("decide confirm", flag.ContinueOnError)
	token := fs.String("token", "", "the task token the approvals topic published")
	operator := idFlag(fs, "operator", "the second operator's id")
	refuse := fs.Bool("refuse", false, "refuse the action instead of approving it")
	reason := fs.String("reason", "", "with --refuse: why")
	t := addTargetFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !t.remote() {
		return usageError{"decide confirm answers a stage's workflow: give --stage (locally, decide takes --second-approver)"}
	}
	if *token == "" || (*operator == 0 && !*refuse) {
		return usageError{"decide confirm: --token and --operator are required"}
	}
	st, err := t.openStage(ctx)
	if err != nil {
		return err
	}
	client := st.sfn()
	if *refuse {
		_, err = client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: token, Error: aws.String("Refused"), Cause: reason})
	} else {
		out, _ := json.Marshal(map[string]int64{"second_approver_id": *operator})
		_, err = client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: token, Output: aws.String(string(out))})
	}
	if err != nil {
		return fmt.Errorf("answer the approval: %w", err)
	}
	return nil
}
