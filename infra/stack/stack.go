// Package stack is the CDK (Go) description of the Entity Verification
// Service: one construct per concern (tables, secrets, functions, API,
// queues, buckets, event sources, decision workflow, schedules,
// observability)
// composed by NewServiceStack. Everything it creates comes from the
// service's own catalogue: shared/schema (tables), shared/deploy (functions,
// their grants, settings, secrets, queues, event sources, routes, gateway
// responses, authorizer cache), shared/metrics (the
// service's own metrics) and the decision state machine's ASL file.
package stack

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// Stages.
const (
	// DefaultStage is the stage when the context names none.
	DefaultStage = "dev"
	// ProdStage is the stage the tests synthesize as production. Nothing
	// depends on the name: every stage is retained (ServiceStackProps.
	// Ephemeral).
	ProdStage = "production"
)

// Context keys PropsFromContext reads, besides one per deploy.Settings()
// entry (named by its Parameter).
const (
	ContextStage = "stage"
	// ContextRetain is "true" (the default on every stage) or "false",
	// which marks a throw-away stage (ServiceStackProps.Ephemeral).
	ContextRetain        = "retain"
	ContextAlarmEmail    = "alarmEmail"
	ContextThrottleRate  = "apiThrottleRate"
	ContextThrottleBurst = "apiThrottleBurst"
)

// StagePattern is what a stage may be: it names the stack (evs-<stage>)
// and the API Gateway stage (template.yaml's Stage parameter has it too).
const StagePattern = `^[a-z][a-z0-9-]{0,19}$`

var stagePattern = regexp.MustCompile(StagePattern)

// ServiceStackProps configures one deployment of the service.
type ServiceStackProps struct {
	awscdk.StackProps
	// Stage names the deployment and the API stage ("dev" when empty).
	Stage string
	// Ephemeral marks a throw-away stage (context retain=false): its
	// tables, secrets, queues and log groups are destroyed with the stack,
	// and its tables are not deletion-protected. False — every stage
	// whatever its name — retains them all and deletion-protects the
	// tables. The buckets and their keys are retained on every stage: the
	// records bucket's objects are under Object Lock in compliance mode,
	// which no one can lift, and its key must outlive them.
	Ephemeral bool
	// AssetRoot holds <function>/bootstrap for every function; empty means
	// build/ at the repository root, what `make build` writes.
	AssetRoot string
	// Settings holds values of deploy.Settings() by Parameter; a setting
	// missing here takes its Default.
	Settings map[string]string
	// AlarmEmail, when set, is subscribed to the alarm topic.
	AlarmEmail string
	// ThrottleRate (requests per second) and ThrottleBurst limit the API
	// stage; zero takes DefaultThrottleRate and DefaultThrottleBurst.
	ThrottleRate  float64
	ThrottleBurst float64
	// BreakGlassRole names the role that alone may delete, disable or
	// re-police the records bucket's key (deploy.BreakGlassRole; empty:
	// its default).
	BreakGlassRole string
	// RecordsReplicaRegion, when set (deploy.RecordsReplicaRegion), adds
	// the replica stack there and has the records bucket replicate into it.
	RecordsReplicaRegion string
}

// ServiceStack is the whole service in one CloudFormation stack.
type ServiceStack struct {
	Stack         awscdk.Stack
	Stage         string
	Data          *Data
	Buckets       *Buckets
	Secrets       *Secrets
	Queues        *Queues
	Functions     *Functions
	EventSources  *EventSources
	Api           *Api
	Workflow      *DecisionWorkflow
	Schedule      *Schedule
	Observability *Observability
	// Replica is the records bucket's replica stack, or nil.
	Replica *RecordsReplica
}

// AdminFunction is the function of shared/deploy that administers a stage.
// It has no route and no event source: an owner invokes it through the
// Lambda Invoke API, and the stack says how in the AdminFunctionOutput.
const AdminFunction = "admin"

// AdminFunctionOutput names the stack output holding the admin function's
// physical name; AdminFunctionOutputDescription tells how to invoke it.
const (
	AdminFunctionOutput            = "AdminFunctionName"
	AdminFunctionOutputDescription = "The admin function (no API route): aws lambda invoke --function-name <this name> " +
		"--cli-binary-format raw-in-base64-out --payload '{\"command\":\"account.list\",\"actor\":\"you@example.com\"}' answer.json " +
		"(a refused command answers FunctionError Unhandled, its errorType in answer.json)"
)

// OpenAPIURLOutput names the stack output holding the URL of the API's
// OpenAPI description (GET /openapi.yaml, public).
const (
	OpenAPIURLOutput            = "OpenApiUrl"
	OpenAPIURLOutputDescription = "The API's OpenAPI 3.1 description (no key): curl it, or load it in any OpenAPI tool"
)

// SettingsURLOutput names the stack output holding the URL of the settings
// area (GET /settings/, public: operators sign in with a link).
const (
	SettingsURLOutput            = "SettingsUrl"
	SettingsURLOutputDescription = "The settings area for operators (webhook endpoints, deliveries, countries) on the stage's URL: " +
		"they sign in with the single-use link the admin command portal.link mints"
)

// ConsoleURLOutput names the stack output holding the URL of the operator
// console (GET /console/, public: operators sign in with their passkeys).
const (
	ConsoleURLOutput            = "ConsoleUrl"
	ConsoleURLOutputDescription = "The operator console (the queue, dossiers, signed decisions) on the stage's URL: " +
		"operators enrol a passkey with the single-use link the admin command portal.link mints, then sign in with it; " +
		"PasskeyRpId and PasskeyOrigins must name the domain it is served on"
)

// StackName is the stack name (and construct id) of a stage: evs-<stage>.
func StackName(stage string) string { return "evs-" + stage }

// NewServiceStack composes the service: tables, secrets and queues, the
// functions that use them, their stream and queue event sources, the REST
// API in front of the functions (whose stage URL then becomes the value of
// every setting that defaults to it and was given none), the decision
// workflow, the daily schedules (periodic reviews, audit export), alarms
// and a dashboard.
// Outputs: ApiUrl (the stage URL),
// OpenApiUrl (OpenAPIURLOutput: the stage URL + /openapi.yaml),
// SettingsUrl (SettingsURLOutput: the stage URL + /settings/),
// ConsoleUrl (ConsoleURLOutput: the stage URL + /console/), per
// table <TableLogicalID>Name (its physical name), per queue
// <QueueLogicalID>Url, per bucket <BucketLogicalID>Name (BucketOutput),
// DecisionStateMachineArn, DecisionApprovalTopicArn,
// AlarmTopicArn and AdminFunctionName (AdminFunctionOutput).
func NewServiceStack(scope constructs.Construct, id *string, props *ServiceStackProps) *ServiceStack {
	if props == nil {
		props = &ServiceStackProps{}
	}
	stage := stageOf(props)
	retain := !props.Ephemeral
	st := newTaggedStack(scope, id, props.StackProps, stage)

	data := NewData(st, jsii.String("Data"), &DataProps{Retain: retain})
	buckets := NewBuckets(st, jsii.String("Buckets"), &BucketsProps{Keys: data.Keys, BreakGlassRole: props.BreakGlassRole})
	secrets := NewSecrets(st, jsii.String("Secrets"), &SecretsProps{Retain: retain})
	queues := NewQueues(st, jsii.String("Queues"), &QueuesProps{Retain: retain})
	fns := NewFunctions(st, jsii.String("Functions"), &FunctionsProps{
		AssetRoot:  props.AssetRoot,
		Tables:     data.Tables,
		Buckets:    buckets.Buckets,
		BucketKeys: buckets.Keys,
		Secrets:    secrets.Secrets,
		Queues:     queues.Queues,
		Settings:   props.Settings,
		Retain:     retain,
	})
	sources := NewEventSources(st, jsii.String("EventSources"), &EventSourcesProps{
		Functions: fns.Functions,
		Tables:    data.Tables,
		Queues:    queues.Queues,
	})
	restAPI := NewApi(st, jsii.String("Api"), &ApiProps{
		Stage:         stage,
		Functions:     fns.Functions,
		ThrottleRate:  props.ThrottleRate,
		ThrottleBurst: props.ThrottleBurst,
		Retain:        retain,
	})
	// A setting given no value that defaults to the stage's URL
	// (SETTINGS_BASE_URL) is that URL: its function (admin) is no route's,
	// so its environment may wait for the API.
	fns.DefaultToStageURL(restAPI.StageURL())
	workflow := NewDecisionWorkflow(st, jsii.String("Workflow"), &DecisionWorkflowProps{
		Stage:     stage,
		Functions: fns.Functions,
		Retain:    retain,
	})
	schedule := NewSchedule(st, jsii.String("Schedule"), &ScheduleProps{Stage: stage, Functions: fns.Functions})
	obs := NewObservability(st, jsii.String("Observability"), &ObservabilityProps{
		Stage:      stage,
		Functions:  fns.Functions,
		Api:        restAPI,
		Workflow:   workflow,
		Queues:     queues,
		AlarmEmail: props.AlarmEmail,
	})

	output(st, "ApiUrl", restAPI.RestApi.Url(), "The API's stage URL; the routes are under api/v1/")
	output(st, OpenAPIURLOutput, restAPI.RestApi.UrlForPath(jsii.String(deploy.OpenAPIPath)), OpenAPIURLOutputDescription)
	output(st, SettingsURLOutput, restAPI.RestApi.UrlForPath(jsii.String(deploy.SettingsPath+"/")), SettingsURLOutputDescription)
	output(st, ConsoleURLOutput, restAPI.RestApi.UrlForPath(jsii.String(deploy.ConsolePath+"/")), ConsoleURLOutputDescription)
	s := &ServiceStack{Stack: st, Stage: stage, Data: data, Buckets: buckets, Secrets: secrets, Queues: queues, Functions: fns, EventSources: sources,
		Api: restAPI, Workflow: workflow, Schedule: schedule, Observability: obs}
	if props.RecordsReplicaRegion != "" {
		s.Replica = NewRecordsReplica(scope, &RecordsReplicaProps{Stage: stage, Region: props.RecordsReplicaRegion, BreakGlassRole: props.BreakGlassRole})
		s.replicateRecords(s.Replica, buckets.Buckets[deploy.BucketRecords], buckets.Keys[deploy.BucketRecords])
	}
	s.catalogueOutputs()
	s.operatorOutputs()
	s.suppressNag()
	return s
}

// stageOf is the props' stage, DefaultStage when none is given; it panics
// on a stage that cannot name the stack's resources.
func stageOf(props *ServiceStackProps) string {
	stage := props.Stage
	if stage == "" {
		stage = DefaultStage
	}
	if !stagePattern.MatchString(stage) {
		panic(fmt.Sprintf("infra: stage %q: use 1 to 20 lower-case letters, digits or dashes, starting with a letter", stage))
	}
	return stage
}

// newTaggedStack is the stack, described after its stage unless sp has a
// description, every resource tagged with the service and the stage.
func newTaggedStack(scope constructs.Construct, id *string, sp awscdk.StackProps, stage string) awscdk.Stack {
	if sp.Description == nil {
		sp.Description = jsii.String("Entity Verification Service, stage " + stage)
	}
	st := awscdk.NewStack(scope, id, &sp)
	awscdk.Tags_Of(st).Add(jsii.String("service"), jsii.String("evs"), nil)
	awscdk.Tags_Of(st).Add(jsii.String("stage"), jsii.String(stage), nil)
	return st
}

// catalogueOutputs name each table, queue and bucket of the catalogue.
func (s *ServiceStack) catalogueOutputs() {
	for _, t := range schema.Tables() {
		output(s.Stack, deploy.TableLogicalID(t.ID)+"Name", s.Data.Tables[t.ID].TableName(), "Physical name of the "+t.ID+" table ("+t.EnvVar+")")
	}
	for _, q := range deploy.Queues() {
		output(s.Stack, q.LogicalID+"Url", s.Queues.Queues[q.ID].QueueUrl(), "URL of the "+q.ID+" queue")
	}
	for _, b := range deploy.Buckets() {
		output(s.Stack, BucketOutput(b), s.Buckets.Buckets[b.ID].BucketName(), BucketOutputDescription(b))
	}
	output(s.Stack, AccessLogsOutput(), s.Buckets.AccessLogs.BucketName(), AccessLogsOutputDescription)
}

// operatorOutputs are what an operator starts, subscribes to or invokes:
// the decision workflow, its approvals topic, the alarm topic, the admin
// function.
func (s *ServiceStack) operatorOutputs() {
	st := s.Stack
	output(st, "DecisionStateMachineArn", s.Workflow.StateMachine.StateMachineArn(), "The decision workflow: start an execution per operator action")
	output(st, "DecisionApprovalTopicArn", s.Workflow.ApprovalTopic.TopicArn(), "Second-approval requests (task tokens); subscribe the approvers")
	output(st, "AlarmTopicArn", s.Observability.Topic.TopicArn(), "Every alarm notifies this topic; subscribe whoever answers them")
	admin, ok := s.Functions.Functions[AdminFunction]
	if !ok {
		panic("infra: the catalogue has no function " + AdminFunction)
	}
	output(st, AdminFunctionOutput, admin.Function.FunctionName(), AdminFunctionOutputDescription)
}

func output(st awscdk.Stack, id string, value *string, description string) {
	o := awscdk.NewCfnOutput(st, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(description)})
	o.OverrideLogicalId(jsii.String(id))
}

// PropsFromContext reads a deployment from the CDK context (cdk.json or
// `cdk … -c key=value`): stage, alarmEmail, apiThrottleRate,
// apiThrottleBurst, every deploy.Settings() Parameter and
// deploy.BreakGlassRole's. It reads no
// environment variable and looks nothing up in an AWS account.
func PropsFromContext(node constructs.Node) *ServiceStackProps {
	str := func(key string) string {
		switch v := node.TryGetContext(jsii.String(key)).(type) {
		case nil:
			return ""
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		default:
			return fmt.Sprint(v)
		}
	}
	num := func(key string) float64 {
		s := str(key)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			panic(fmt.Sprintf("infra: context %s=%q is not a positive number", key, s))
		}
		return f
	}
	p := &ServiceStackProps{
		Stage:          str(ContextStage),
		Ephemeral:      !retainOf(str(ContextRetain)),
		AlarmEmail:     str(ContextAlarmEmail),
		ThrottleRate:   num(ContextThrottleRate),
		ThrottleBurst:  num(ContextThrottleBurst),
		Settings:       map[string]string{},
		BreakGlassRole: str(deploy.BreakGlassRole().Parameter),

		RecordsReplicaRegion: str(deploy.RecordsReplicaRegion().Parameter),
	}
	if p.Stage == "" {
		p.Stage = DefaultStage
	}
	for _, s := range deploy.Settings() {
		if v := str(s.Parameter); v != "" {
			p.Settings[s.Parameter] = v
		}
	}
	return p
}

// retainOf reads the retain context value: true unless "false".
func retainOf(v string) bool {
	switch v {
	case "", "true":
		return true
	case "false":
		return false
	}
	panic(fmt.Sprintf("infra: context %s=%q is not true or false", ContextRetain, v))
}

// LogRetentionDays is how long every log group of the stack keeps its
// events: the functions', the access logs, the state machine's.
const LogRetentionDays = 30

// logRetention is LogRetentionDays as CDK spells it.
func logRetention() awslogs.RetentionDays { return retentionDays(LogRetentionDays) }

// retentionDays is a number of days as CDK spells a log retention.
func retentionDays(n int) awslogs.RetentionDays {
	days := map[int]awslogs.RetentionDays{7: awslogs.RetentionDays_ONE_WEEK, 30: awslogs.RetentionDays_ONE_MONTH, 90: awslogs.RetentionDays_THREE_MONTHS,
		3653: awslogs.RetentionDays_TEN_YEARS}
	r, ok := days[n]
	if !ok {
		panic(fmt.Sprintf("infra: no awslogs.RetentionDays for %d days", n))
	}
	return r
}

// removal is RETAIN, or DESTROY for what an ephemeral stage's stack takes
// with it.
func removal(retain bool) awscdk.RemovalPolicy {
	if retain {
		return awscdk.RemovalPolicy_RETAIN
	}
	return awscdk.RemovalPolicy_DESTROY
}
