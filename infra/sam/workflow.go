package sam

import (
	"fmt"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// logDeliveryActions are what a state machine's role needs to send its logs
// to CloudWatch Logs, which has no resource-level permissions for them (the
// CDK stack's role gets the same from CDK).
func logDeliveryActions() []string {
	return []string{
		"logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
		"logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups",
	}
}

const workflowNote = `------------------------------------------------------- decision workflow
stack.DecisionDefinitionFile, the one definition the CDK stack deploys too:
Validate -> [AwaitSecondApproval] -> Apply, each task the decision
function; four-eyes requests (with their task token) go to the approvals
topic, encrypted with the AWS managed key (whose key policy lets the
account publish through SNS with no KMS permission).`

// workflow: the approvals topic, the state machine's log group, and the
// state machine with a role written out (not SAM's LambdaInvokePolicy,
// which allows every function whose name starts with the decision
// function's).
func workflow() ([]Pair, error) {
	fn, err := deploy.FunctionByName(stack.DecisionFunction)
	if err != nil {
		return nil, fmt.Errorf("sam: the decision workflow: %w", err)
	}
	logGroup := stack.DecisionStateMachineID + "LogGroup"
	return []Pair{
		resource(stack.DecisionApprovalTopicID, "AWS::SNS::Topic", Map(
			KV("DisplayName", Sub(stack.ApprovalTopicDisplayName(stage))),
			KV("KmsMasterKeyId", stack.AWSManagedSNSKey),
		)).Note(workflowNote),
		resource(logGroup, "AWS::Logs::LogGroup", Map(
			KV("LogGroupName", Sub(stack.DecisionLogGroupName(stage))),
			KV("RetentionInDays", stack.LogRetentionDays),
		), retained()...),
		resource(stack.DecisionStateMachineID, "AWS::Serverless::StateMachine", Map(
			KV("Type", "STANDARD"),
			KV("DefinitionUri", stack.DecisionDefinitionFile),
			KV("DefinitionSubstitutions", Map(
				KV(stack.SubstDecisionFunctionArn, GetAtt(fn.LogicalID, "Arn")),
				KV(stack.SubstApprovalTopicArn, Ref(stack.DecisionApprovalTopicID)),
			)),
			KV("Logging", Map(
				KV("Level", "ALL"),
				KV("IncludeExecutionData", false),
				KV("Destinations", List(Map(KV("CloudWatchLogsLogGroup", Map(KV("LogGroupArn", GetAtt(logGroup, "Arn"))))))),
			)).Note("ALL events, no execution data: kept beyond the 90 days Step Functions keeps a\n"+
				"STANDARD execution's history; inputs carry operators' reasons, whose record is the audit table."),
			KV("Tracing", Map(KV("Enabled", true))),
			KV("Policies", List(Map(KV("Statement", statementList([]Statement{
				{Sid: stack.InvokeDecisionSid, Actions: []string{"lambda:InvokeFunction"},
					Resources: []*yamlNode{GetAtt(fn.LogicalID, "Arn"), Sub("${" + fn.LogicalID + ".Arn}:*")}},
				{Sid: stack.PublishApprovalsSid, Actions: []string{"sns:Publish"}, Resources: []*yamlNode{Ref(stack.DecisionApprovalTopicID)}},
				{Actions: logDeliveryActions(), Resources: []*yamlNode{node("*")}},
			}))))),
		)),
	}, nil
}
