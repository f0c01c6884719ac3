package main

// One command line, two targets: without --stage a command calls the admin
// handler in-process against the local store; with --stage NAME it finds the
// stack evs-NAME (its CloudFormation outputs) and invokes the stage's admin
// function through the Lambda Invoke API, so IAM decides and CloudTrail
// records. decide --stage starts the stage's decision state machine.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/user"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// Stack outputs the commands read.
const (
	outputAdminFunction = "AdminFunctionName"
	outputDecisionSM    = "DecisionStateMachineArn"
)

// stackOutputsVar supplies a stage's outputs without CloudFormation, as a
// JSON object ({"AdminFunctionName": "…"}): for tests, and for a caller
// allowed to invoke but not to describe stacks.
const stackOutputsVar = "EVS_STACK_OUTPUTS"

// targetFlags are the flags every administering command takes.
type targetFlags struct {
	stage, region, profile, endpointURL, actor *string
}

func addTargetFlags(fs *flag.FlagSet) targetFlags {
	return targetFlags{
		stage:       fs.String("stage", "", "act on the deployed stage NAME (stack evs-NAME) instead of the local store"),
		region:      fs.String("region", "", "with --stage: the AWS region (default: the AWS configuration's)"),
		profile:     fs.String("profile", "", "with --stage: the AWS profile (default: the AWS configuration's)"),
		endpointURL: fs.String("endpoint-url", "", "with --stage: send Lambda and Step Functions calls here (a local stand-in)"),
		actor:       fs.String("actor", "", "who you are, for the audit trail (default: $EVS_ACTOR, else cli:<user>)"),
	}
}

// remote reports whether the command acts on a stage.
func (t targetFlags) remote() bool { return *t.stage != "" }

// actorName is who runs the command, as the audit trail records it.
func (t targetFlags) actorName() string {
	if *t.actor != "" {
		return *t.actor
	}
	if v := os.Getenv("EVS_ACTOR"); v != "" {
		return v
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}

// stage is a deployed stage: its AWS configuration and stack outputs.
type stage struct {
	name     string
	cfg      aws.Config
	endpoint string
	outputs  map[string]string
}

// openStage loads the AWS configuration (region, profile, the usual
// variables) and the stack's outputs.
func (t targetFlags) openStage(ctx context.Context) (*stage, error) {
	var opts []func(*config.LoadOptions) error
	if *t.region != "" {
		opts = append(opts, config.WithRegion(*t.region))
	}
	if *t.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(*t.profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("stage %s: load the AWS configuration: %w", *t.stage, err)
	}
	st := &stage{name: *t.stage, cfg: cfg, endpoint: *t.endpointURL}
	if v := os.Getenv(stackOutputsVar); v != "" {
		if err := json.Unmarshal([]byte(v), &st.outputs); err != nil {
			return nil, fmt.Errorf("%s: not a JSON object of outputs: %w", stackOutputsVar, err)
		}
		return st, nil
	}
	stack := "evs-" + st.name
	out, err := cloudformation.NewFromConfig(cfg).DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stack)})
	if err != nil {
		return nil, fmt.Errorf("stage %s: describe stack %s: %w", st.name, stack, err)
	}
	if len(out.Stacks) == 0 {
		return nil, fmt.Errorf("stage %s: no stack %s", st.name, stack)
	}
	st.outputs = map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		st.outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return st, nil
}

// output is one stack output, which must exist.
func (s *stage) output(key string) (string, error) {
	v := s.outputs[key]
	if v == "" {
		return "", fmt.Errorf("stage %s: stack evs-%s has no output %s (deployed before it existed? deploy again)", s.name, s.name, key)
	}
	return v, nil
}

func (s *stage) lambda() *lambda.Client {
	return lambda.NewFromConfig(s.cfg, func(o *lambda.Options) {
		if s.endpoint != "" {
			o.BaseEndpoint = aws.String(s.endpoint)
		}
	})
}

func (s *stage) sfn() *sfn.Client {
	return sfn.NewFromConfig(s.cfg, func(o *sfn.Options) {
		if s.endpoint != "" {
			o.BaseEndpoint = aws.String(s.endpoint)
		}
	})
}

// refusal is a named failure of a function (InvalidRequest, NotFound,
// Forbidden, Conflict, IllegalTransition, …), the same whether the
// function ran in-process or on a stage.
type refusal struct {
	Name    string `json:"errorType"`
	Message string `json:"errorMessage"`
}

func (r *refusal) Error() string { return r.Name + ": " + r.Message }

// asRefusal reports err as a refusal when it is one.
func asRefusal(err error) (*refusal, bool) {
	var r *refusal
	ok := errors.As(err, &r)
	return r, ok
}
