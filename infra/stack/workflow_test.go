package stack_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// What the placeholders of the ASL file must become, as ref renders them.
var wantSubstitutions = map[string]string{
	stack.SubstDecisionFunctionArn: "arn:DecisionFunction",
	stack.SubstApprovalTopicArn:    "ref:" + stack.DecisionApprovalTopicID,
}

// aslFile is the ASL file with its placeholders replaced by
// wantSubstitutions.
func aslFile(t *testing.T) obj {
	t.Helper()
	text, err := stack.DecisionDefinition()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range wantSubstitutions {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	var def obj
	if err := json.Unmarshal([]byte(text), &def); err != nil {
		t.Fatalf("%s is not JSON: %v", stack.DecisionDefinitionFile, err)
	}
	return def
}

// deployedDefinition is the state machine's definition as CloudFormation
// will create it: DefinitionString (a string, or a join of strings and
// tokens) with DefinitionSubstitutions applied.
func deployedDefinition(t *testing.T, p obj) obj {
	t.Helper()
	text := ref(p["DefinitionString"])
	subst, _ := p["DefinitionSubstitutions"].(obj)
	got := map[string]string{}
	for k, v := range subst {
		got[k] = ref(v)
		text = strings.ReplaceAll(text, "${"+k+"}", ref(v))
	}
	if !reflect.DeepEqual(got, wantSubstitutions) {
		t.Errorf("DefinitionSubstitutions = %v, want %v", got, wantSubstitutions)
	}
	if strings.Contains(text, "${") {
		t.Errorf("a placeholder is left unsubstituted in the definition")
	}
	var def obj
	if err := json.Unmarshal([]byte(text), &def); err != nil {
		t.Fatalf("the deployed definition is not JSON: %v", err)
	}
	return def
}

// The state machine: STANDARD, the ASL file with its placeholders pointing
// at DecisionFunction and the approvals topic, its own role, failures
// logged without execution data, traced.
func TestDecisionStateMachine(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		id, sm := only(t, s.JSON, "AWS::StepFunctions::StateMachine")
		if id != stack.DecisionStateMachineID {
			t.Errorf("state machine %s, want %s", id, stack.DecisionStateMachineID)
		}
		p := props(sm)
		if p["StateMachineType"] != "STANDARD" {
			t.Errorf("StateMachineType = %v", p["StateMachineType"])
		}
		if got, want := deployedDefinition(t, p), aslFile(t); !reflect.DeepEqual(got, want) {
			t.Errorf("the deployed definition is not %s with the ARNs substituted", stack.DecisionDefinitionFile)
		}
		if got := ref(p["RoleArn"]); got != "arn:"+stack.DecisionStateMachineID+"Role" {
			t.Errorf("RoleArn = %s", got)
		}
		if tc, _ := p["TracingConfiguration"].(obj); tc == nil || tc["Enabled"] != true {
			t.Errorf("TracingConfiguration = %v", p["TracingConfiguration"])
		}

		lc, _ := p["LoggingConfiguration"].(obj)
		if lc == nil || lc["Level"] != "ERROR" || lc["IncludeExecutionData"] != false {
			t.Fatalf("LoggingConfiguration = %v, want level ERROR without execution data", lc)
		}
		dests := asList(lc["Destinations"])
		logGroupID := stack.DecisionStateMachineID + "LogGroup"
		if len(dests) != 1 || ref(dests[0].(obj)["CloudWatchLogsLogGroup"].(obj)["LogGroupArn"]) != "arn:"+logGroupID {
			t.Errorf("log destinations = %v, want %s", dests, logGroupID)
		}
		lg := resource(t, s.JSON, logGroupID, "AWS::Logs::LogGroup")
		if name := props(lg)["LogGroupName"]; name != "/aws/vendedlogs/states/evs-"+s.Props.Stage+"-decision" {
			t.Errorf("LogGroupName = %v", name)
		}
		if days := props(lg)["RetentionInDays"]; days != float64(30) {
			t.Errorf("log retention = %v days, want 30", days)
		}
		if want := map[bool]string{true: "Retain", false: "Delete"}[s.Props.Stage == stack.ProdStage]; lg["DeletionPolicy"] != want {
			t.Errorf("log group DeletionPolicy = %v, want %s", lg["DeletionPolicy"], want)
		}
	})
}

// The workflow's shape, as an operator meets it in the console: the states,
// the transitions, the retries of the Lambda tasks and the named failures.
func TestDecisionDefinition(t *testing.T) {
	def := aslFile(t)
	states := def["States"].(obj)
	want := []string{
		"Validate", "NeedsSecondApproval", "AwaitSecondApproval", "WithSecondApprover", "Apply", "Decided",
		"IllegalTransition", "Forbidden", "NotFound", "InvalidRequest", "Conflict", "SecondApproverRequired",
		"SecondApprovalTimedOut", "SecondApprovalRefused", "DecisionFailed",
	}
	if !equal(keys(states), want) {
		t.Errorf("states: %s", diff(keys(states), want))
	}
	if def["StartAt"] != "Validate" {
		t.Errorf("StartAt = %v", def["StartAt"])
	}
	state := func(name string) obj {
		s, ok := states[name].(obj)
		if !ok {
			t.Fatalf("no state %s", name)
		}
		return s
	}

	// Every transition names a state, and every state is reachable.
	next := map[string][]string{}
	for name, s := range states {
		s := s.(obj)
		var to []string
		if n, ok := s["Next"].(string); ok {
			to = append(to, n)
		}
		if d, ok := s["Default"].(string); ok {
			to = append(to, d)
		}
		for _, c := range asList(s["Choices"]) {
			to = append(to, c.(obj)["Next"].(string))
		}
		for _, c := range asList(s["Catch"]) {
			to = append(to, c.(obj)["Next"].(string))
		}
		for _, n := range to {
			if states[n] == nil {
				t.Errorf("%s goes to %s, which is not a state", name, n)
			}
		}
		next[name] = to
		if typ := s["Type"]; typ != "Succeed" && typ != "Fail" && len(to) == 0 && s["End"] != true {
			t.Errorf("%s (%v) neither ends nor goes anywhere", name, typ)
		}
	}
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, m := range next[n] {
			walk(m)
		}
	}
	walk("Validate")
	if !equal(keys(seen), keys(states)) {
		t.Errorf("unreachable: %s", diff(keys(seen), keys(states)))
	}

	// Fail states carry their own name as the error.
	for name, s := range states {
		if s := s.(obj); s["Type"] == "Fail" && s["Error"] != name {
			t.Errorf("Fail state %s has Error %v", name, s["Error"])
		}
	}

	// Both Lambda tasks invoke the decision function, retry Lambda's own
	// transient errors only (a refusal or a fault is not retried: the
	// action id makes a retry safe, but it would refuse again), and route
	// each refusal to the Fail state of its name, anything else to
	// DecisionFailed.
	lambdaErrors := []string{"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.TooManyRequestsException"}
	refusals := map[string][]string{
		"Validate": {domain.FailIllegalTransition, domain.FailForbidden, domain.FailNotFound, domain.FailInvalid},
		"Apply": {domain.FailIllegalTransition, domain.FailForbidden, domain.FailNotFound, domain.FailInvalid,
			domain.FailConflict, domain.FailSecondApprover},
	}
	for _, name := range []string{"Validate", "Apply"} {
		s := state(name)
		params, _ := s["Parameters"].(obj)
		if s["Type"] != "Task" || s["Resource"] != "arn:aws:states:::lambda:invoke" || params["FunctionName"] != wantSubstitutions[stack.SubstDecisionFunctionArn] {
			t.Errorf("%s: %v %v, FunctionName %v", name, s["Type"], s["Resource"], params["FunctionName"])
		}
		payload, _ := params["Payload"].(obj)
		if payload["phase"] != strings.ToLower(name) || payload["execution_id.$"] != "$$.Execution.Name" {
			t.Errorf("%s: payload %v", name, payload)
		}
		retries := asList(s["Retry"])
		if len(retries) != 1 {
			t.Fatalf("%s: %d Retry blocks, want 1", name, len(retries))
		}
		r := retries[0].(obj)
		if !equal(strs(r["ErrorEquals"]), lambdaErrors) {
			t.Errorf("%s retries %s", name, diff(strs(r["ErrorEquals"]), lambdaErrors))
		}
		if r["MaxAttempts"] != float64(3) || r["BackoffRate"] != float64(2) || r["IntervalSeconds"] != float64(1) {
			t.Errorf("%s: MaxAttempts %v, BackoffRate %v, IntervalSeconds %v, want 3, 2, 1", name, r["MaxAttempts"], r["BackoffRate"], r["IntervalSeconds"])
		}

		catches := asList(s["Catch"])
		var caught []string
		for i, c := range catches {
			c := c.(obj)
			errs := strs(c["ErrorEquals"])
			if len(errs) != 1 {
				t.Errorf("%s: catch %v", name, errs)
				continue
			}
			wantNext := errs[0]
			if errs[0] == "States.ALL" {
				wantNext = "DecisionFailed"
				if i != len(catches)-1 {
					t.Errorf("%s: States.ALL is not the last catch", name)
				}
			} else {
				caught = append(caught, errs[0])
			}
			if c["Next"] != wantNext || c["ResultPath"] != "$.error" {
				t.Errorf("%s: %s goes to %v (ResultPath %v), want %s", name, errs[0], c["Next"], c["ResultPath"], wantNext)
			}
			if states[wantNext] == nil || state(wantNext)["Type"] != "Fail" {
				t.Errorf("%s: %s is not a Fail state", name, wantNext)
			}
		}
		if !equal(caught, refusals[name]) {
			t.Errorf("%s catches %s", name, diff(caught, refusals[name]))
		}
	}

	// Four eyes: the task token goes to the approvals topic; three days to
	// answer.
	await := state("AwaitSecondApproval")
	params, _ := await["Parameters"].(obj)
	msg, _ := params["Message"].(obj)
	if await["Resource"] != "arn:aws:states:::sns:publish.waitForTaskToken" || params["TopicArn"] != wantSubstitutions[stack.SubstApprovalTopicArn] || msg["task_token.$"] != "$$.Task.Token" {
		t.Errorf("AwaitSecondApproval: %v to %v, message %v", await["Resource"], params["TopicArn"], msg)
	}
	if await["TimeoutSeconds"] != float64(3*24*3600) {
		t.Errorf("AwaitSecondApproval TimeoutSeconds = %v", await["TimeoutSeconds"])
	}
	var awaitCatch []string
	for _, c := range asList(await["Catch"]) {
		awaitCatch = append(awaitCatch, strings.Join(strs(c.(obj)["ErrorEquals"]), ",")+" -> "+c.(obj)["Next"].(string))
	}
	if want := []string{"States.Timeout -> SecondApprovalTimedOut", "States.ALL -> SecondApprovalRefused"}; !reflect.DeepEqual(awaitCatch, want) {
		t.Errorf("AwaitSecondApproval catches %v, want %v", awaitCatch, want)
	}
	choice := state("NeedsSecondApproval")
	if c := asList(choice["Choices"]); len(c) != 1 || c[0].(obj)["Next"] != "AwaitSecondApproval" || choice["Default"] != "Apply" {
		t.Errorf("NeedsSecondApproval = %v", choice)
	}
	if state("WithSecondApprover")["Next"] != "Apply" || state("Apply")["Next"] != "Decided" || state("Decided")["Type"] != "Succeed" {
		t.Error("the approved path is not WithSecondApprover → Apply → Decided")
	}
}

// The state machine's role: invoke the decision function (and its
// versions), publish to the approvals topic, and on "*" only the log
// delivery and X-Ray actions Step Functions needs, which have no
// resource-level permissions. Trusted by Step Functions alone.
func TestDecisionStateMachineRole(t *testing.T) {
	tmpl := dev(t).JSON
	roleID := stack.DecisionStateMachineID + "Role"
	role := props(resource(t, tmpl, roleID, "AWS::IAM::Role"))
	if role["ManagedPolicyArns"] != nil || role["Policies"] != nil || role["PermissionsBoundary"] != nil {
		t.Errorf("role has ManagedPolicyArns %v, Policies %v", role["ManagedPolicyArns"], role["Policies"])
	}
	trust := role["AssumeRolePolicyDocument"].(obj)["Statement"].([]any)
	if len(trust) != 1 || ref(trust[0].(obj)["Principal"]) != `{"Service":"states.amazonaws.com"}` || trust[0].(obj)["Action"] != "sts:AssumeRole" {
		t.Errorf("trust policy = %v", trust)
	}
	for id, r := range resources(tmpl, "AWS::Lambda::Function") {
		if ref(props(r)["Role"]) == "arn:"+roleID {
			t.Errorf("function %s uses the state machine's role", id)
		}
	}

	got := rolePermissions(t, tmpl, roleID)
	want := []string{
		"lambda:InvokeFunction arn:DecisionFunction",
		"lambda:InvokeFunction arn:DecisionFunction:*",
		"sns:Publish ref:" + stack.DecisionApprovalTopicID,
	}
	star := map[string]bool{}
	for _, a := range []string{
		// Vended log delivery to CloudWatch Logs.
		"logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
		"logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups",
		// Tracing.
		"xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets",
	} {
		star[a+" *"] = true
	}
	var scoped []string
	for _, p := range got {
		if strings.HasSuffix(p, " *") {
			if !star[p] {
				t.Errorf("%s on every resource", p)
			}
			continue
		}
		scoped = append(scoped, p)
	}
	if !equal(scoped, want) {
		t.Errorf("permissions: %s", diff(scoped, want))
	}
}

// rolePermissions flattens every AWS::IAM::Policy attached to a role into
// "action resource" pairs, failing on anything but plain Allow statements.
func rolePermissions(t *testing.T, tmpl obj, roleID string) []string {
	t.Helper()
	var got []string
	for id, pol := range resources(tmpl, "AWS::IAM::Policy") {
		attached := false
		for _, r := range strs(props(pol)["Roles"]) {
			attached = attached || r == "ref:"+roleID
		}
		if !attached {
			continue
		}
		for _, st := range props(pol)["PolicyDocument"].(obj)["Statement"].([]any) {
			st := st.(obj)
			for _, k := range []string{"NotAction", "NotResource", "Condition", "Principal", "NotPrincipal"} {
				if st[k] != nil {
					t.Errorf("%s: statement with %s: %v", id, k, st)
				}
			}
			if st["Effect"] != "Allow" {
				t.Errorf("%s: statement %v is not an Allow", id, st)
			}
			for _, a := range strs(st["Action"]) {
				for _, r := range strs(st["Resource"]) {
					got = append(got, a+" "+r)
				}
			}
		}
	}
	return got
}

// The approvals topic: encrypted with the AWS managed SNS key, no
// subscription in the stack (approvers subscribe themselves).
func TestApprovalTopic(t *testing.T) {
	tmpl := dev(t).JSON
	topic := props(resource(t, tmpl, stack.DecisionApprovalTopicID, "AWS::SNS::Topic"))
	if key := ref(topic["KmsMasterKeyId"]); key != stack.AWSManagedSNSKey && !strings.HasSuffix(key, ":"+stack.AWSManagedSNSKey) {
		t.Errorf("KmsMasterKeyId = %s, want %s", key, stack.AWSManagedSNSKey)
	}
	for id, sub := range resources(tmpl, "AWS::SNS::Subscription") {
		if ref(props(sub)["TopicArn"]) == "ref:"+stack.DecisionApprovalTopicID {
			t.Errorf("subscription %s on the approvals topic", id)
		}
	}
}

// The periodic reviews run daily from one rule, with bounded retries;
// EventBridge may invoke the function from that rule only, and nothing may
// invoke the decision function but the state machine's role.
func TestPeriodicReviewsSchedule(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		rule := props(resource(t, s.JSON, stack.PeriodicReviewsScheduleID, "AWS::Events::Rule"))
		if rule["ScheduleExpression"] != stack.PeriodicReviewsSchedule || rule["State"] != "ENABLED" {
			t.Errorf("ScheduleExpression %v, State %v", rule["ScheduleExpression"], rule["State"])
		}
		if rule["Name"] != stack.PeriodicReviewsRuleName(s.Props.Stage) {
			t.Errorf("Name = %v", rule["Name"])
		}
		if rule["EventPattern"] != nil || rule["EventBusName"] != nil {
			t.Errorf("a schedule with EventPattern %v, EventBusName %v", rule["EventPattern"], rule["EventBusName"])
		}
		targets := asList(rule["Targets"])
		if len(targets) != 1 {
			t.Fatalf("%d targets, want 1", len(targets))
		}
		tg := targets[0].(obj)
		if got := ref(tg["Arn"]); got != "arn:PeriodicReviewsFunction" {
			t.Errorf("target %s", got)
		}
		// The handler reads the scheduled event itself (its time names the
		// period), so the target passes it unchanged.
		for _, k := range []string{"Input", "InputPath", "InputTransformer", "RoleArn"} {
			if tg[k] != nil {
				t.Errorf("target %s = %v", k, tg[k])
			}
		}
		rp, _ := tg["RetryPolicy"].(obj)
		if rp == nil || rp["MaximumRetryAttempts"] != float64(stack.PeriodicReviewsRetryAttempts) || rp["MaximumEventAgeInSeconds"] != float64(stack.PeriodicReviewsMaxEventAgeSeconds) {
			t.Errorf("RetryPolicy = %v", rp)
		}
		for id, r := range resources(s.JSON, "AWS::Events::Rule") {
			for _, tg := range asList(props(r)["Targets"]) {
				if fn := ref(tg.(obj)["Arn"]); id != stack.PeriodicReviewsScheduleID && (fn == "arn:PeriodicReviewsFunction" || fn == "arn:DecisionFunction") {
					t.Errorf("rule %s also invokes %s", id, fn)
				}
			}
		}

		var perms []string
		for id, perm := range resources(s.JSON, "AWS::Lambda::Permission") {
			p := props(perm)
			switch ref(p["FunctionName"]) {
			case "arn:PeriodicReviewsFunction":
				perms = append(perms, id)
				if p["Principal"] != "events.amazonaws.com" || p["Action"] != "lambda:InvokeFunction" || ref(p["SourceArn"]) != "arn:"+stack.PeriodicReviewsScheduleID {
					t.Errorf("permission %s: %v may %v from %s", id, p["Principal"], p["Action"], ref(p["SourceArn"]))
				}
				if p["SourceAccount"] != nil || p["EventSourceToken"] != nil {
					t.Errorf("permission %s = %v", id, p)
				}
			case "arn:DecisionFunction", "ref:DecisionFunction":
				t.Errorf("permission %s lets %v invoke the decision function", id, p["Principal"])
			}
		}
		if len(perms) != 1 {
			t.Errorf("%d permissions on the periodic-reviews function, want 1: %v", len(perms), perms)
		}
	})
}

// DecisionStateMachineArn and DecisionApprovalTopicArn.
func TestWorkflowOutputs(t *testing.T) {
	outputs := dev(t).JSON["Outputs"].(obj)
	for name, want := range map[string]string{
		"DecisionStateMachineArn":  "ref:" + stack.DecisionStateMachineID,
		"DecisionApprovalTopicArn": "ref:" + stack.DecisionApprovalTopicID,
	} {
		o, ok := outputs[name].(obj)
		if !ok || ref(o["Value"]) != want {
			t.Errorf("output %s = %v, want %s", name, o, want)
		}
	}
}
