package stack_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// What the placeholders of the ASL file must become, as ref renders them.
var wantSubstitutions = map[string]string{
	stack.SubstDecisionFunctionArn: "arn:DecisionFunction",
	stack.SubstApprovalTopicArn:    "ref:" + stack.DecisionApprovalTopicID,
}

// aslFile is the ASL file with its placeholders replaced by
// wantSubstitutions.
func aslFile(t *testing.T) m {
	t.Helper()
	text, err := stack.DecisionDefinition()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range wantSubstitutions {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	var def m
	if err := json.Unmarshal([]byte(text), &def); err != nil {
		t.Fatalf("%s is not JSON: %v", stack.DecisionDefinitionFile, err)
	}
	return def
}

// The state machine: STANDARD, the ASL file with its placeholders pointing
// at DecisionFunction and the approvals topic (and no other placeholder),
// its own role, failures logged without execution data, traced.
func TestDecisionStateMachine(t *testing.T) {
	text, err := stack.DecisionDefinition()
	if err != nil {
		t.Fatal(err)
	}
	var file any
	if err := json.Unmarshal([]byte(text), &file); err != nil {
		t.Fatalf("%s is not JSON: %v", stack.DecisionDefinitionFile, err)
	}
	for k := range wantSubstitutions {
		text = strings.ReplaceAll(text, "${"+k+"}", "")
	}
	if strings.Contains(text, "${") {
		t.Errorf("%s has a placeholder the stack does not substitute", stack.DecisionDefinitionFile)
	}
	logGroupID := stack.DecisionStateMachineID + "LogGroup"
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::StepFunctions::StateMachine", 1)
		hasProps(t, s.Template, stack.DecisionStateMachineID, "AWS::StepFunctions::StateMachine", m{
			"StateMachineType": "STANDARD",
			"DefinitionString": jsonOf(file),
			"DefinitionSubstitutions": exactly(m{
				stack.SubstDecisionFunctionArn: arnOf("DecisionFunction"),
				stack.SubstApprovalTopicArn:    refOf(stack.DecisionApprovalTopicID),
			}),
			"RoleArn":              arnOf(stack.DecisionStateMachineID + "Role"),
			"TracingConfiguration": like(m{"Enabled": true}),
			"LoggingConfiguration": like(m{
				"Level":                "ALL",
				"IncludeExecutionData": false,
				"Destinations":         arrayOf(like(m{"CloudWatchLogsLogGroup": like(m{"LogGroupArn": arnOf(logGroupID)})})),
			}),
		})
		hasResource(t, s.Template, logGroupID, "AWS::Logs::LogGroup", m{
			"Properties": like(m{
				"LogGroupName":    "/aws/vendedlogs/states/evs-" + s.Props.Stage + "-decision",
				"RetentionInDays": 30,
			}),
			"DeletionPolicy": removalPolicy(!s.Props.Ephemeral),
		})
	})
}

// The workflow's shape, as an operator meets it in the console: the states,
// the transitions, the retries of the Lambda tasks and the named failures.
func TestDecisionDefinition(t *testing.T) {
	def := aslFile(t)
	states := def["States"].(m)
	want := []string{
		"Keep", "Validate", "NeedsSecondApproval", "NotifySecondApproval", "AwaitSecondApproval", "Apply", "Decided",
		"IllegalTransition", "Forbidden", "NotFound", "InvalidRequest", "Conflict", "SecondApproverRequired",
		"StaleView", "SignatureRequired", "DecisionBlocked", "SecondApprovalTimedOut", "SecondApprovalRefused", "DecisionFailed",
	}
	if !equal(keys(states), want) {
		t.Errorf("states: %s", diff(keys(states), want))
	}
	if def["StartAt"] != "Keep" {
		t.Errorf("StartAt = %v", def["StartAt"])
	}
	state := func(name string) m {
		s, ok := states[name].(m)
		if !ok {
			t.Fatalf("no state %s", name)
		}
		return s
	}

	// Every transition names a state, and every state is reachable.
	next := map[string][]string{}
	for name, s := range states {
		s := s.(m)
		var to []string
		if n, ok := s["Next"].(string); ok {
			to = append(to, n)
		}
		if d, ok := s["Default"].(string); ok {
			to = append(to, d)
		}
		for _, c := range asList(s["Choices"]) {
			to = append(to, c.(m)["Next"].(string))
		}
		for _, c := range asList(s["Catch"]) {
			to = append(to, c.(m)["Next"].(string))
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
	walk(def["StartAt"].(string))
	if !equal(keys(seen), keys(states)) {
		t.Errorf("unreachable: %s", diff(keys(seen), keys(states)))
	}

	// Fail states carry their own name as the error.
	for name, s := range states {
		if s := s.(m); s["Type"] == "Fail" && s["Error"] != name {
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
		"Validate": {domain.FailIllegalTransition, domain.FailForbidden, domain.FailNotFound, domain.FailInvalid, domain.FailStaleView,
			domain.FailSignatureRequired, domain.FailDecisionBlocked},
		"Apply": {domain.FailIllegalTransition, domain.FailForbidden, domain.FailNotFound, domain.FailInvalid,
			domain.FailConflict, domain.FailSecondApprover, domain.FailStaleView, domain.FailSignatureRequired, domain.FailDecisionBlocked},
	}
	for _, name := range []string{"Validate", "Apply"} {
		s := state(name)
		params, _ := s["Parameters"].(m)
		if s["Type"] != "Task" || s["Resource"] != "arn:aws:states:::lambda:invoke" || params["FunctionName"] != wantSubstitutions[stack.SubstDecisionFunctionArn] {
			t.Errorf("%s: %v %v, FunctionName %v", name, s["Type"], s["Resource"], params["FunctionName"])
		}
		payload, _ := params["Payload"].(m)
		if payload["phase"] != strings.ToLower(name) || payload["execution_id.$"] != "$$.Execution.Name" {
			t.Errorf("%s: payload %v", name, payload)
		}
		retries := asList(s["Retry"])
		if len(retries) != 1 {
			t.Fatalf("%s: %d Retry blocks, want 1", name, len(retries))
		}
		r := retries[0].(m)
		if !equal(strs(r["ErrorEquals"]), lambdaErrors) {
			t.Errorf("%s retries %s", name, diff(strs(r["ErrorEquals"]), lambdaErrors))
		}
		if r["MaxAttempts"] != float64(3) || r["BackoffRate"] != float64(2) || r["IntervalSeconds"] != float64(1) {
			t.Errorf("%s: MaxAttempts %v, BackoffRate %v, IntervalSeconds %v, want 3, 2, 1", name, r["MaxAttempts"], r["BackoffRate"], r["IntervalSeconds"])
		}

		catches := asList(s["Catch"])
		var caught []string
		for i, c := range catches {
			c := c.(m)
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

	// Four eyes: the approvals topic is told (no token: only the console
	// answers), the decision function records the wait with the task
	// token; three days to answer.
	notify := state("NotifySecondApproval")
	np, _ := notify["Parameters"].(m)
	nmsg, _ := np["Message"].(m)
	if notify["Resource"] != "arn:aws:states:::sns:publish" || np["TopicArn"] != wantSubstitutions[stack.SubstApprovalTopicArn] || nmsg["task_token.$"] != nil ||
		notify["Next"] != "AwaitSecondApproval" || notify["ResultPath"] != "$.notified" {
		t.Errorf("NotifySecondApproval: %v to %v, message %v, next %v", notify["Resource"], np["TopicArn"], nmsg, notify["Next"])
	}
	await := state("AwaitSecondApproval")
	params, _ := await["Parameters"].(m)
	msg, _ := params["Payload"].(m)
	if await["Resource"] != "arn:aws:states:::lambda:invoke.waitForTaskToken" || params["FunctionName"] != wantSubstitutions[stack.SubstDecisionFunctionArn] ||
		msg["task_token.$"] != "$$.Task.Token" || msg["phase"] != "await" {
		t.Errorf("AwaitSecondApproval: %v to %v, payload %v", await["Resource"], params["FunctionName"], msg)
	}
	if await["TimeoutSeconds"] != float64(3*24*3600) {
		t.Errorf("AwaitSecondApproval TimeoutSeconds = %v", await["TimeoutSeconds"])
	}
	var awaitCatch []string
	for _, c := range asList(await["Catch"]) {
		awaitCatch = append(awaitCatch, strings.Join(strs(c.(m)["ErrorEquals"]), ",")+" -> "+c.(m)["Next"].(string))
	}
	if want := []string{"States.Timeout -> SecondApprovalTimedOut", "SignatureRequired -> SignatureRequired", "States.ALL -> SecondApprovalRefused"}; !reflect.DeepEqual(awaitCatch, want) {
		t.Errorf("AwaitSecondApproval catches %v, want %v", awaitCatch, want)
	}
	choice := state("NeedsSecondApproval")
	if c := asList(choice["Choices"]); len(c) != 1 || c[0].(m)["Next"] != "NotifySecondApproval" || choice["Default"] != "Apply" {
		t.Errorf("NeedsSecondApproval = %v", choice)
	}
	if state("AwaitSecondApproval")["Next"] != "Apply" || state("Apply")["Next"] != "Decided" || state("Decided")["Type"] != "Succeed" {
		t.Error("the approved path is not AwaitSecondApproval → Apply → Decided")
	}
	// The request reaches each task as the execution's input, and the
	// approval answer reaches Apply whole, beside it: the decision function
	// reads both strictly, so nothing the workflow adds can pass as a field
	// of the request, and the answer cannot carry more than its one field
	// unseen (a ResultSelector would drop the rest silently).
	keep := state("Keep")
	if p, _ := keep["Parameters"].(m); keep["Next"] != "Validate" || p["request.$"] != "$" || !reflect.DeepEqual(p["approval"], m{}) || len(p) != 2 {
		t.Errorf("Keep = %v", keep)
	}
	if _, ok := await["ResultSelector"]; ok || await["ResultPath"] != "$.approval" || msg["request.$"] != "$.request" {
		t.Errorf("AwaitSecondApproval keeps %v at %v from %v", await["ResultSelector"], await["ResultPath"], msg["request.$"])
	}
	for name, want := range map[string]m{
		"Validate": {"phase": "validate", "request.$": "$.request", "execution_id.$": "$$.Execution.Name", "execution_arn.$": "$$.Execution.Id"},
		"Apply": {"phase": "apply", "request.$": "$.request", "approval.$": "$.approval", "execution_id.$": "$$.Execution.Name",
			"execution_arn.$": "$$.Execution.Id"},
	} {
		p, _ := state(name)["Parameters"].(m)
		if got, _ := p["Payload"].(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's payload = %v, want %v", name, got, want)
		}
	}
}

// The state machine's role: invoke the decision function (and its
// versions), publish to the approvals topic, and on "*" only the log
// delivery and X-Ray actions Step Functions needs, which have no
// resource-level permissions. Trusted by Step Functions alone.
func TestDecisionStateMachineRole(t *testing.T) {
	tmpl := dev(t).Template
	roleID := stack.DecisionStateMachineID + "Role"
	trustedBy(t, tmpl, roleID, "states.amazonaws.com")
	if users := find(t, tmpl, "AWS::Lambda::Function", m{"Role": arnOf(roleID)}); len(users) != 0 {
		t.Errorf("functions %v use the state machine's role", keys(users))
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
func rolePermissions(t *testing.T, tmpl assertions.Template, roleID string) []string {
	t.Helper()
	plainAllow := like(m{"Effect": "Allow", "NotAction": absent(), "NotResource": absent(), "Condition": absent(), "Principal": absent(), "NotPrincipal": absent()})
	var got []string
	for id, pol := range find(t, tmpl, "AWS::IAM::Policy", m{"Roles": arrayWith(refOf(roleID))}) {
		for _, st := range pol["Properties"].(m)["PolicyDocument"].(m)["Statement"].([]any) {
			if b, ok := bucketKeyStatement(st.(m)); ok {
				// A conditioned statement: a bucket's key, only through S3
				// and only for that bucket.
				matches(t, id+" statement", st, like(m{"Effect": "Allow", "NotAction": absent(), "NotResource": absent(), "Principal": absent(),
					"Condition": exactly(m{"StringEquals": exactly(bucketKeyCondition(b))})}))
			} else if _, conditioned := st.(m)["Condition"]; conditioned {
				// The other: an UpdateItem of some attributes alone
				// (deploy.Grant.Attributes).
				matches(t, id+" statement", st, like(m{"Effect": "Allow", "Action": "dynamodb:UpdateItem", "NotAction": absent(), "NotResource": absent(),
					"Principal": absent(), "Condition": like(m{"ForAllValues:StringEquals": like(m{"dynamodb:Attributes": arrayWith()})})}))
			} else {
				matches(t, id+" statement", st, plainAllow)
			}
			for _, a := range strs(st.(m)["Action"]) {
				for _, r := range strs(st.(m)["Resource"]) {
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
	tmpl := dev(t).Template
	key := m{"Fn::Join": []any{"", []any{"arn:", refOf("AWS::Partition"), ":kms:", refOf("AWS::Region"), ":", refOf("AWS::AccountId"), ":" + stack.AWSManagedSNSKey}}}
	hasProps(t, tmpl, stack.DecisionApprovalTopicID, "AWS::SNS::Topic", m{"KmsMasterKeyId": key})
	if subs := find(t, tmpl, "AWS::SNS::Subscription", m{"TopicArn": refOf(stack.DecisionApprovalTopicID)}); len(subs) != 0 {
		t.Errorf("subscriptions %v on the approvals topic", keys(subs))
	}
}

// The periodic reviews and the audit export run daily, each from a rule of
// its own with bounded retries; EventBridge may invoke each function from
// its rule only; there is no other rule, and nothing may invoke the
// decision function but the state machine's role.
func TestDailySchedules(t *testing.T) {
	tests := []struct {
		function, ruleID, schedule string
	}{
		{"periodic-reviews", "PeriodicReviewsSchedule", "cron(0 2 * * ? *)"},
		{"audit-export", "AuditExportSchedule", "cron(0 3 * * ? *)"},
	}
	if len(stack.DailyRuns()) != len(tests) {
		t.Errorf("%d daily runs, want %d", len(stack.DailyRuns()), len(tests))
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::Events::Rule", len(tests))
		for _, tc := range tests {
			t.Run(tc.function, func(t *testing.T) {
				run, ok := stack.DailyRunOf(tc.function)
				if !ok || run.RuleID != tc.ruleID || run.Schedule != tc.schedule {
					t.Fatalf("daily run %+v, want rule %s on %s", run, tc.ruleID, tc.schedule)
				}
				fn := deploy.MustFunction(tc.function).LogicalID
				hasProps(t, s.Template, tc.ruleID, "AWS::Events::Rule", m{
					"ScheduleExpression": tc.schedule,
					"State":              "ENABLED",
					"Name":               stack.StackName(s.Props.Stage) + "-" + tc.function,
					"Description":        run.Description,
					"EventPattern":       absent(),
					"EventBusName":       absent(),
					"Targets": arrayOf(like(m{
						"Arn": arnOf(fn),
						// The handler reads the scheduled event itself (its
						// time names the period), so the target passes it
						// unchanged.
						"Input": absent(), "InputPath": absent(), "InputTransformer": absent(), "RoleArn": absent(),
						"RetryPolicy": exactly(m{
							"MaximumRetryAttempts":     stack.DailyRunRetryAttempts,
							"MaximumEventAgeInSeconds": stack.DailyRunMaxEventAgeSeconds,
						}),
					})),
				})
				for _, id := range keys(find(t, s.Template, "AWS::Events::Rule", m{"Targets": arrayWith(like(m{"Arn": arnOf(fn)}))})) {
					if id != tc.ruleID {
						t.Errorf("rule %s invokes %s", id, fn)
					}
				}
				perms := find(t, s.Template, "AWS::Lambda::Permission", m{"FunctionName": arnOf(fn)})
				if len(perms) != 1 {
					t.Errorf("%d permissions on %s, want 1: %v", len(perms), fn, keys(perms))
				}
				for id := range perms {
					hasProps(t, s.Template, id, "AWS::Lambda::Permission", m{
						"Principal":        "events.amazonaws.com",
						"Action":           "lambda:InvokeFunction",
						"SourceArn":        arnOf(tc.ruleID),
						"SourceAccount":    absent(),
						"EventSourceToken": absent(),
					})
				}
			})
		}
		for _, id := range keys(find(t, s.Template, "AWS::Events::Rule", m{"Targets": arrayWith(like(m{"Arn": arnOf("DecisionFunction")}))})) {
			t.Errorf("rule %s invokes the decision function", id)
		}
		for _, target := range []m{arnOf("DecisionFunction"), refOf("DecisionFunction")} {
			for id, p := range find(t, s.Template, "AWS::Lambda::Permission", m{"FunctionName": target}) {
				t.Errorf("permission %s lets %v invoke the decision function", id, p["Properties"].(m)["Principal"])
			}
		}
	})
}

// DecisionStateMachineArn and DecisionApprovalTopicArn.
func TestWorkflowOutputs(t *testing.T) {
	tmpl := dev(t).Template
	hasOutput(t, tmpl, "DecisionStateMachineArn", m{"Value": refOf(stack.DecisionStateMachineID)})
	hasOutput(t, tmpl, "DecisionApprovalTopicArn", m{"Value": refOf(stack.DecisionApprovalTopicID)})
}
