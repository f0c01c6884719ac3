package stack

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// The functions of shared/deploy the workflow and the schedules run.
const (
	DecisionFunction        = "decision"
	PeriodicReviewsFunction = "periodic-reviews"
	AuditExportFunction     = "audit-export"
)

// The decision workflow as template.yaml declares it too (made from these).
const (
	// DecisionDefinitionFile is the one ASL definition, relative to the
	// repository root (template.yaml's DefinitionUri).
	DecisionDefinitionFile = "infra/statemachine/decision.asl.json"
	// The ${…} placeholders of the definition.
	SubstDecisionFunctionArn = "DecisionFunctionArn"
	SubstApprovalTopicArn    = "ApprovalTopicArn"
	// Logical ids, the same in template.yaml.
	DecisionStateMachineID  = "DecisionStateMachine"
	DecisionApprovalTopicID = "DecisionApprovalTopic"
	// AWSManagedSNSKey encrypts the approvals topic. Its key policy lets any
	// principal of the account use it through SNS, so the state machine's
	// role needs no KMS permission to publish.
	AWSManagedSNSKey = "alias/aws/sns"
)

// The daily schedules as template.yaml declares them too (DailyRuns).
const (
	PeriodicReviewsScheduleID = "PeriodicReviewsSchedule"
	// PeriodicReviewsSchedule runs daily at 02:00 UTC.
	PeriodicReviewsSchedule    = "cron(0 2 * * ? *)"
	PeriodicReviewsDescription = "Opens the periodic reviews that are due, daily at 02:00 UTC"
	AuditExportScheduleID      = "AuditExportSchedule"
	// AuditExportSchedule runs daily at 03:00 UTC: the day it covers has
	// closed, and the periodic run's appends are in, as they were when
	// periodic-reviews exported the heads after opening the reviews.
	AuditExportSchedule    = "cron(0 3 * * ? *)"
	AuditExportDescription = "Locks the day's audit chain heads and manifest in the records bucket, daily at 03:00 UTC"
	// EventBridge's retries of a delivery it could not hand to Lambda. A
	// run that is dropped costs a day at most: the next run does whatever
	// is due by then.
	DailyRunRetryAttempts      = 2
	DailyRunMaxEventAgeSeconds = 3600
)

// DailyRun is a function EventBridge invokes once a day from a rule of its
// own: each run is retried, fails and is named on its own, and SAM
// declares it as the function's Schedule event, which makes one rule per
// function.
type DailyRun struct {
	// Function is the deploy.Function's name.
	Function string
	// RuleID is the rule's logical id, the same in template.yaml.
	RuleID      string
	Schedule    string
	Description string
}

// DailyRuns are the functions run daily, each by its rule.
func DailyRuns() []DailyRun {
	return []DailyRun{
		{Function: PeriodicReviewsFunction, RuleID: PeriodicReviewsScheduleID, Schedule: PeriodicReviewsSchedule, Description: PeriodicReviewsDescription},
		{Function: AuditExportFunction, RuleID: AuditExportScheduleID, Schedule: AuditExportSchedule, Description: AuditExportDescription},
	}
}

// DailyRunOf is the daily run of the function named name, if it has one.
func DailyRunOf(name string) (DailyRun, bool) {
	for _, r := range DailyRuns() {
		if r.Function == name {
			return r, true
		}
	}
	return DailyRun{}, false
}

// RuleName is the run's rule name in a stage: evs-<stage>-<function>.
func (r DailyRun) RuleName(stage string) string { return StackName(stage) + "-" + r.Function }

// ApprovalTopicDisplayName is the approvals topic's display name in a stage.
func ApprovalTopicDisplayName(stage string) string { return "EVS " + stage + " second approvals" }

// DecisionLogGroupName is the state machine's log group in a stage: under
// /aws/vendedlogs/ CloudWatch Logs needs no resource policy per log group
// for the delivery (that policy has a small size limit).
func DecisionLogGroupName(stage string) string {
	return "/aws/vendedlogs/states/" + StackName(stage) + "-decision"
}

// DecisionWorkflowProps configures the decision workflow.
type DecisionWorkflowProps struct {
	// Stage names the log group.
	Stage string
	// Functions maps function names to functions (Functions.Functions); it
	// must hold DecisionFunction and every function that drives the
	// workflow (deploy.Function.Workflow).
	Functions map[string]*Function
	// Retain keeps the log group when the stack is deleted (every stage but an ephemeral one).
	Retain bool
}

// DecisionWorkflow is the operator-decision state machine and what it uses.
type DecisionWorkflow struct {
	constructs.Construct
	StateMachine awsstepfunctions.StateMachine
	// ApprovalTopic receives the task token of a decision that needs a
	// second operator.
	ApprovalTopic awssns.Topic
	Role          awsiam.Role
	LogGroup      awslogs.LogGroup
}

// NewDecisionWorkflow creates the approvals topic and the STANDARD state
// machine of DecisionDefinitionFile, its placeholders substituted by
// CloudFormation (DefinitionSubstitutions, as in template.yaml), with a role
// of its own: lambda:InvokeFunction on the decision function (and its
// versions), sns:Publish on the topic, and what CDK adds for logging and
// X-Ray. Logical ids: DecisionStateMachine, DecisionStateMachineRole,
// DecisionStateMachineLogGroup, DecisionApprovalTopic.
//
// Then it lets each function that drives the workflow (the console's) do
// exactly its catalogue's actions (WorkflowStatements) and tells it the
// state machine's ARN (deploy.DecisionStateMachineVar): here, once the
// state machine exists, as the functions are made before it. The state
// machine names the decision function alone, so no cycle.
func NewDecisionWorkflow(scope constructs.Construct, id *string, props *DecisionWorkflowProps) *DecisionWorkflow {
	if props == nil || props.Stage == "" {
		panic("infra: DecisionWorkflowProps.Stage is required")
	}
	fn, ok := props.Functions[DecisionFunction]
	if !ok {
		panic(fmt.Sprintf("infra: the decision workflow needs function %q", DecisionFunction))
	}
	definition, err := DecisionDefinition()
	if err != nil {
		panic(err.Error())
	}

	w := &DecisionWorkflow{Construct: constructs.NewConstruct(scope, id)}
	w.ApprovalTopic = awssns.NewTopic(w.Construct, jsii.String(DecisionApprovalTopicID), &awssns.TopicProps{
		DisplayName: jsii.String(ApprovalTopicDisplayName(props.Stage)),
		MasterKey:   awskms.Alias_FromAliasName(w.Construct, jsii.String("AwsManagedSnsKey"), jsii.String(AWSManagedSNSKey)),
	})
	overrideID(w.ApprovalTopic, DecisionApprovalTopicID)

	w.LogGroup = awslogs.NewLogGroup(w.Construct, jsii.String("LogGroup"), &awslogs.LogGroupProps{
		LogGroupName:  jsii.String(DecisionLogGroupName(props.Stage)),
		Retention:     logRetention(),
		RemovalPolicy: removal(props.Retain),
	})
	overrideID(w.LogGroup, DecisionStateMachineID+"LogGroup")

	fnArn := fn.Function.FunctionArn()
	w.Role = w.newRole(fnArn)
	w.StateMachine = w.newStateMachine(definition, fnArn)
	w.letDriversStart(props.Functions)
	return w
}

// newRole is the state machine's role: invoke the decision function (and
// its versions), publish to the approvals topic.
func (w *DecisionWorkflow) newRole(fnArn *string) awsiam.Role {
	role := awsiam.NewRole(w.Construct, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil),
		Description: jsii.String("Role of the decision state machine: invoke the decision function, publish approval requests"),
	})
	overrideID(role, DecisionStateMachineID+"Role")
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:     jsii.String(InvokeDecisionSid),
		Effect:  awsiam.Effect_ALLOW,
		Actions: jsii.Strings("lambda:InvokeFunction"),
		// ARN:* covers a qualified ARN (version or alias).
		Resources: &[]*string{fnArn, jsii.String(*fnArn + ":*")},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String(PublishApprovalsSid),
		Effect:    awsiam.Effect_ALLOW,
		Actions:   jsii.Strings("sns:Publish"),
		Resources: &[]*string{w.ApprovalTopic.TopicArn()},
	}))
	return role
}

// newStateMachine is the STANDARD state machine of definition, its
// placeholders substituted by CloudFormation, running as w.Role and
// logging to w.LogGroup.
func (w *DecisionWorkflow) newStateMachine(definition string, fnArn *string) awsstepfunctions.StateMachine {
	sm := awsstepfunctions.NewStateMachine(w.Construct, jsii.String("StateMachine"), &awsstepfunctions.StateMachineProps{
		StateMachineType: awsstepfunctions.StateMachineType_STANDARD,
		DefinitionBody:   awsstepfunctions.DefinitionBody_FromString(jsii.String(definition)),
		DefinitionSubstitutions: &map[string]*string{
			SubstDecisionFunctionArn: fnArn,
			SubstApprovalTopicArn:    w.ApprovalTopic.TopicArn(),
		},
		Role: w.Role,
		// ALL: every state's events, kept and searchable beyond the 90 days
		// Step Functions keeps a STANDARD execution's history (a review
		// reads what happened to a decision there; AwsSolutions-SF1). No
		// execution data: inputs carry operators' reasons, whose record is
		// the audit table.
		Logs: &awsstepfunctions.LogOptions{
			Destination:          w.LogGroup,
			Level:                awsstepfunctions.LogLevel_ALL,
			IncludeExecutionData: jsii.Bool(false),
		},
		TracingEnabled: jsii.Bool(true),
	})
	overrideID(sm, DecisionStateMachineID)
	if p, ok := w.Role.Node().TryFindChild(jsii.String("DefaultPolicy")).(awsiam.Policy); ok && p != nil {
		overrideID(p, DecisionStateMachineID+"RoleDefaultPolicy")
	}
	return sm
}

// letDriversStart gives each function that drives the workflow its
// catalogue's actions (WorkflowStatements) and the state machine's ARN
// (deploy.DecisionStateMachineVar).
func (w *DecisionWorkflow) letDriversStart(functions map[string]*Function) {
	for _, spec := range deploy.Functions() {
		if len(spec.Workflow) == 0 {
			continue
		}
		f, ok := functions[spec.Name]
		if !ok {
			panic(fmt.Sprintf("infra: %s drives the decision workflow, but the stack has no such function", spec.Name))
		}
		for _, st := range WorkflowStatements(spec, w.StateMachine.StateMachineArn(), w.ExecutionsArn()) {
			f.Role.AddToPrincipalPolicy(st)
		}
		f.Function.AddEnvironment(jsii.String(deploy.DecisionStateMachineVar), w.StateMachine.StateMachineArn(), nil)
	}
}

// ExecutionsArn matches every execution of the state machine:
// arn:<partition>:states:<region>:<account>:execution:<state machine name>:*.
func (w *DecisionWorkflow) ExecutionsArn() *string {
	return awscdk.Stack_Of(w.Construct).FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("states"),
		Resource:     jsii.String("execution"),
		ResourceName: jsii.String(*w.StateMachine.StateMachineName() + ":*"),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

// WorkflowStatements are the permissions of a function that drives the
// decision workflow (deploy.Function.Workflow): its actions on the state
// machine on stateMachineArn, and those on the executions on
// executionsArn (DecisionWorkflow.ExecutionsArn); none for a function
// without. Nothing else of Step Functions: not another state machine's
// executions, not an activity, not a heartbeat.
func WorkflowStatements(spec deploy.Function, stateMachineArn, executionsArn *string) []awsiam.PolicyStatement {
	var out []awsiam.PolicyStatement
	for _, s := range []struct {
		sid      string
		scope    deploy.WorkflowScope
		resource *string
	}{
		{DriveDecisionWorkflowSid, deploy.OnStateMachine, stateMachineArn},
		{DecisionExecutionsSid, deploy.OnExecutions, executionsArn},
	} {
		if actions := spec.WorkflowActionsOn(s.scope); len(actions) > 0 {
			out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String(s.sid),
				Effect:    awsiam.Effect_ALLOW,
				Actions:   jsii.Strings(actions...),
				Resources: &[]*string{s.resource},
			}))
		}
	}
	return out
}

// DecisionDefinition is the text of DecisionDefinitionFile.
func DecisionDefinition() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, DecisionDefinitionFile))
	if err != nil {
		return "", fmt.Errorf("infra: the decision state machine: %w", err)
	}
	return string(b), nil
}

// ScheduleProps configures the daily schedules.
type ScheduleProps struct {
	// Stage names the rules.
	Stage string
	// Functions must hold every DailyRuns() function.
	Functions map[string]*Function
}

// Schedule holds the rules of the daily runs.
type Schedule struct {
	constructs.Construct
	// Rules maps the functions' names to their rules.
	Rules map[string]awsevents.Rule
}

// NewSchedule creates one EventBridge rule per DailyRuns() entry, under
// its RuleID, which invokes its function daily with bounded retries, and
// the permission for EventBridge to invoke the function from that rule
// only.
func NewSchedule(scope constructs.Construct, id *string, props *ScheduleProps) *Schedule {
	if props == nil || props.Stage == "" {
		panic("infra: ScheduleProps.Stage is required")
	}
	s := &Schedule{Construct: constructs.NewConstruct(scope, id), Rules: map[string]awsevents.Rule{}}
	for _, run := range DailyRuns() {
		fn, ok := props.Functions[run.Function]
		if !ok {
			panic(fmt.Sprintf("infra: the schedule needs function %q", run.Function))
		}
		rule := awsevents.NewRule(s.Construct, jsii.String(run.RuleID), &awsevents.RuleProps{
			RuleName:    jsii.String(run.RuleName(props.Stage)),
			Description: jsii.String(run.Description),
			Schedule:    awsevents.Schedule_Expression(jsii.String(run.Schedule)),
			Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn.Function, &awseventstargets.LambdaFunctionProps{
				RetryAttempts: jsii.Number(DailyRunRetryAttempts),
				MaxEventAge:   awscdk.Duration_Seconds(jsii.Number(DailyRunMaxEventAgeSeconds)),
			})},
		})
		overrideID(rule, run.RuleID)
		s.Rules[run.Function] = rule
	}
	return s
}

// overrideID gives a construct's CloudFormation resource a fixed logical id.
func overrideID(c constructs.IConstruct, logicalID string) {
	c.Node().DefaultChild().(awscdk.CfnElement).OverrideLogicalId(jsii.String(logicalID))
}
