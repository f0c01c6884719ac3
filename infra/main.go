// Command infra is the CDK app of the Entity Verification Service: one stack,
// evs-<stage>, described by package stack. Run it through the CDK CLI from
// this folder (make synth, make deploy); everything it needs comes from the
// CDK context (stage, alarmEmail, apiThrottleRate, apiThrottleBurst and the
// settings of shared/deploy), never from the environment, and the stack is
// environment-agnostic: account and region are those of the deployment.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/infra/stack"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	props := stack.PropsFromContext(app.Node())
	stack.NewServiceStack(app, jsii.String(stack.StackName(props.Stage)), props)
	app.Synth(nil)
}
