package rehearse

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// checkStateMachine: the decision workflow is active and runs the states of
// its ASL file.
func checkStateMachine(ctx context.Context, d *deployed, _ expect, f *findings) int {
	r, ok := physical(d, f, stack.DecisionStateMachineID, "AWS::StepFunctions::StateMachine")
	if !ok {
		return 1
	}
	out, err := d.in(r.Region).sfn.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(r.PhysicalID)})
	if f.err(err, "state machine") {
		return 1
	}
	f.equal("state machine status", out.Status, "ACTIVE")
	asl, err := stack.DecisionDefinition()
	if f.err(err, "state machine") {
		return 1
	}
	f.equal("state machine states", stateNames(aws.ToString(out.Definition)), stateNames(asl))
	return 1
}

// stateNames are a definition's StartAt and its states' names, sorted.
func stateNames(definition string) []string {
	var asl struct {
		StartAt string                     `json:"StartAt"`
		States  map[string]json.RawMessage `json:"States"`
	}
	if json.Unmarshal([]byte(definition), &asl) != nil {
		return nil
	}
	out := []string{"StartAt " + asl.StartAt}
	for name := range asl.States {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// checkFunctions: every function of shared/deploy, its runtime,
// architecture, handler, memory and timeout, and its environment: exactly
// its EnvVarNames, each naming what the stack made (tables, buckets,
// queues, secrets, the state machine) or holding its setting.
func checkFunctions(ctx context.Context, d *deployed, e expect, f *findings) int {
	for _, fn := range deploy.Functions() {
		r, ok := physical(d, f, fn.LogicalID, "AWS::Lambda::Function")
		if !ok {
			continue
		}
		cfg, err := d.in(r.Region).lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(r.PhysicalID)})
		if f.err(err, "function "+fn.Name) {
			continue
		}
		f.equal("function "+fn.Name+" runtime", cfg.Runtime, deploy.Runtime)
		f.equal("function "+fn.Name+" architectures", cfg.Architectures, []string{deploy.Architecture})
		f.equal("function "+fn.Name+" handler", aws.ToString(cfg.Handler), deploy.Handler)
		f.equal("function "+fn.Name+" memory", aws.ToInt32(cfg.MemorySize), fn.MemoryMB)
		f.equal("function "+fn.Name+" timeout", aws.ToInt32(cfg.Timeout), fn.TimeoutSeconds)
		env := map[string]string{}
		if cfg.Environment != nil {
			env = cfg.Environment.Variables
		}
		var names []string
		for k := range env {
			names = append(names, k)
		}
		if !sameSet(names, fn.EnvVarNames()) {
			sort.Strings(names)
			f.add("function %s environment: %v, want %v", fn.Name, names, fn.EnvVarNames())
		}
		for name, want := range wantEnvironment(d, e, fn) {
			f.equal("function "+fn.Name+" "+name, env[name], want)
		}
	}
	return len(deploy.Functions())
}

// wantEnvironment is what each variable of a function's environment must
// hold.
func wantEnvironment(d *deployed, e expect, fn deploy.Function) map[string]string {
	id := func(logicalID string) string {
		if rs := d.byID[logicalID]; len(rs) == 1 {
			return rs[0].PhysicalID
		}
		return "(no " + logicalID + ")"
	}
	want := map[string]string{deploy.LogLevelVar: stack.LogLevel}
	for _, t := range fn.TableIDs() {
		want[schema.MustTable(t).EnvVar] = id(deploy.TableLogicalID(t))
	}
	for _, b := range fn.BucketIDs() {
		want[deploy.MustBucket(b).EnvVar] = id(deploy.MustBucket(b).LogicalID)
	}
	for _, q := range fn.SendsTo {
		want[deploy.MustQueue(q).EnvVar] = id(deploy.MustQueue(q).LogicalID)
	}
	for _, s := range fn.Secrets {
		want[s.EnvVar] = id(deploy.SecretLogicalID(s.SecretID))
	}
	if len(fn.Workflow) > 0 {
		want[deploy.DecisionStateMachineVar] = id(stack.DecisionStateMachineID)
	}
	for _, s := range fn.Settings {
		v := e.value(s.Parameter, s.Default)
		if v == "" && s.DefaultsToStageURL {
			v = strings.TrimSuffix(d.outputs["ApiUrl"], "/")
		}
		want[s.EnvVar] = v
	}
	return want
}

// checkMappings: every event source mapping of shared/deploy's functions,
// from its table's stream or its queue to its function, its batch size,
// retries and on-failure queue.
func checkMappings(ctx context.Context, d *deployed, _ expect, f *findings) int {
	n := 0
	for _, fn := range deploy.Functions() {
		for _, src := range fn.Streams {
			n++
			m, ok := mapping(ctx, d, f, fn, stack.StreamMappingID(fn, src))
			if !ok {
				continue
			}
			f.equal("mapping "+stack.StreamMappingID(fn, src)+" source", aws.ToString(m.EventSourceArn), streamArn(ctx, d, f, src.Table))
			f.equal("mapping "+stack.StreamMappingID(fn, src)+" batch", aws.ToInt32(m.BatchSize), src.BatchSize)
			f.equal("mapping "+stack.StreamMappingID(fn, src)+" retries", aws.ToInt32(m.MaximumRetryAttempts), src.MaxRetries)
			onFailure := ""
			if m.DestinationConfig != nil && m.DestinationConfig.OnFailure != nil {
				onFailure = aws.ToString(m.DestinationConfig.OnFailure.Destination)
			}
			f.equal("mapping "+stack.StreamMappingID(fn, src)+" on failure", onFailure, queueArn(ctx, d, f, src.OnFailure))
		}
		if fn.Queue != nil {
			n++
			m, ok := mapping(ctx, d, f, fn, stack.QueueMappingID(fn))
			if !ok {
				continue
			}
			f.equal("mapping "+stack.QueueMappingID(fn)+" source", aws.ToString(m.EventSourceArn), queueArn(ctx, d, f, fn.Queue.Queue))
			f.equal("mapping "+stack.QueueMappingID(fn)+" batch", aws.ToInt32(m.BatchSize), fn.Queue.BatchSize)
		}
	}
	return n
}

func mapping(ctx context.Context, d *deployed, f *findings, fn deploy.Function, id string) (*lambda.GetEventSourceMappingOutput, bool) {
	r, ok := physical(d, f, id, "AWS::Lambda::EventSourceMapping")
	if !ok {
		return nil, false
	}
	m, err := d.in(r.Region).lambda.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(r.PhysicalID)})
	if f.err(err, "mapping "+id) {
		return nil, false
	}
	if fnr, ok := physical(d, f, fn.LogicalID, "AWS::Lambda::Function"); ok && !strings.HasSuffix(aws.ToString(m.FunctionArn), ":"+fnr.PhysicalID) {
		f.add("mapping %s: invokes %s, want %s", id, aws.ToString(m.FunctionArn), fnr.PhysicalID)
	}
	return m, true
}

func streamArn(ctx context.Context, d *deployed, f *findings, table string) string {
	r, ok := physical(d, f, deploy.TableLogicalID(table), "AWS::DynamoDB::Table")
	if !ok {
		return ""
	}
	out, err := d.in(r.Region).ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.PhysicalID)})
	if f.err(err, "table "+table) {
		return ""
	}
	return aws.ToString(out.Table.LatestStreamArn)
}

func queueArn(ctx context.Context, d *deployed, f *findings, queue string) string {
	r, ok := physical(d, f, deploy.MustQueue(queue).LogicalID, "AWS::SQS::Queue")
	if !ok {
		return ""
	}
	out, err := d.in(r.Region).sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(r.PhysicalID),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if f.err(err, "queue "+queue) {
		return ""
	}
	return out.Attributes["QueueArn"]
}

// checkRules: every daily run's EventBridge rule, its schedule, enabled,
// targeting its function.
func checkRules(ctx context.Context, d *deployed, _ expect, f *findings) int {
	for _, run := range stack.DailyRuns() {
		r, ok := physical(d, f, run.RuleID, "AWS::Events::Rule")
		if !ok {
			continue
		}
		c := d.in(r.Region).events
		rule, err := c.DescribeRule(ctx, &eventbridge.DescribeRuleInput{Name: aws.String(r.PhysicalID)})
		if f.err(err, "rule "+run.RuleID) {
			continue
		}
		f.equal("rule "+run.RuleID+" schedule", aws.ToString(rule.ScheduleExpression), run.Schedule)
		f.equal("rule "+run.RuleID+" state", rule.State, "ENABLED")
		targets, err := c.ListTargetsByRule(ctx, &eventbridge.ListTargetsByRuleInput{Rule: aws.String(r.PhysicalID)})
		if f.err(err, "rule "+run.RuleID+" targets") {
			continue
		}
		fn, ok := physical(d, f, deploy.MustFunction(run.Function).LogicalID, "AWS::Lambda::Function")
		var got []string
		for _, t := range targets.Targets {
			got = append(got, aws.ToString(t.Arn))
		}
		if ok && (len(got) != 1 || !strings.HasSuffix(got[0], ":"+fn.PhysicalID)) {
			f.add("rule %s: targets %v, want the function %s", run.RuleID, got, fn.PhysicalID)
		}
	}
	return len(stack.DailyRuns())
}

// checkAPI: every route of shared/deploy on the REST API, a Lambda proxy
// integration of its function, behind the authorizer unless public; the
// stage, throttled as the context says.
func checkAPI(ctx context.Context, d *deployed, e expect, f *findings) int {
	apis := d.ofType("AWS::ApiGateway::RestApi")
	if len(apis) != 1 {
		f.add("REST APIs: %d, want 1", len(apis))
		return 0
	}
	api := apis[0]
	c := d.in(api.Region).apigw
	res, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: aws.String(api.PhysicalID), Embed: []string{"methods"}, Limit: aws.Int32(500)})
	if f.err(err, "API resources") {
		return 0
	}
	paths := map[string]string{}
	for _, r := range res.Items {
		paths[aws.ToString(r.Path)] = aws.ToString(r.Id)
	}
	for _, route := range deploy.Routes() {
		what := "route " + route.Method + " " + route.Path
		rid, ok := paths[route.Path]
		if !ok {
			f.add("%s: no resource", what)
			continue
		}
		m, err := c.GetMethod(ctx, &apigateway.GetMethodInput{RestApiId: aws.String(api.PhysicalID), ResourceId: aws.String(rid), HttpMethod: aws.String(route.Method)})
		if f.err(err, what) {
			continue
		}
		auth := "CUSTOM"
		if route.Public {
			auth = "NONE"
		}
		f.equal(what+" authorization", aws.ToString(m.AuthorizationType), auth)
		fn, ok := physical(d, f, deploy.MustFunction(route.Function).LogicalID, "AWS::Lambda::Function")
		if m.MethodIntegration == nil || !ok || !contains(aws.ToString(m.MethodIntegration.Uri), ":function:"+fn.PhysicalID+"/") {
			f.add("%s: not integrated with its function %s", what, route.Function)
		}
	}
	stage := e.value(stack.ContextStage, stack.DefaultStage)
	st, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: aws.String(api.PhysicalID), StageName: aws.String(stage)})
	if !f.err(err, "API stage "+stage) {
		all := st.MethodSettings["*/*"]
		f.equal("stage "+stage+" throttling rate", all.ThrottlingRateLimit, e.value(stack.ContextThrottleRate, fmt.Sprint(stack.DefaultThrottleRate)))
		f.equal("stage "+stage+" throttling burst", all.ThrottlingBurstLimit, e.value(stack.ContextThrottleBurst, fmt.Sprint(stack.DefaultThrottleBurst)))
		if st.AccessLogSettings == nil || aws.ToString(st.AccessLogSettings.DestinationArn) == "" {
			f.add("stage %s: no access logs", stage)
		}
	}
	return len(deploy.Routes())
}
