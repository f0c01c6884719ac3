package stack_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// adminSpec is the admin function's catalogue entry.
func adminSpec(t *testing.T) deploy.Function {
	t.Helper()
	f, ok := deploy.Lookup(stack.AdminFunction)
	if !ok {
		t.Fatalf("the catalogue has no function %s", stack.AdminFunction)
	}
	return f
}

// The admin function is reached through the Lambda Invoke API alone: the
// catalogue gives it no route and no event source, and nothing in the stack
// invokes it or lets a service invoke it (no API method, no permission, no
// event source mapping, no rule, not the state machine).
func TestAdminFunctionHasNoTrigger(t *testing.T) {
	f := adminSpec(t)
	if _, ok := f.Route(); ok || f.Stream != nil || f.Queue != nil {
		t.Fatalf("catalogue: %s has a route or an event source (stream %v, queue %v)", f.Name, f.Stream, f.Queue)
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		tmpl := s.JSON
		resource(t, tmpl, f.LogicalID, "AWS::Lambda::Function")
		names := map[string]bool{"ref:" + f.LogicalID: true, "arn:" + f.LogicalID: true}
		for _, m := range methods(t, tmpl) {
			if m.function == f.Name {
				t.Errorf("API method %s %s reaches %s", m.httpMethod, m.path, f.Name)
			}
		}
		cases := []struct {
			typ    string
			target func(p obj) []string
		}{
			{"AWS::Lambda::Permission", func(p obj) []string { return []string{ref(p["FunctionName"])} }},
			{"AWS::Lambda::EventSourceMapping", func(p obj) []string { return []string{ref(p["FunctionName"])} }},
			{"AWS::Lambda::EventInvokeConfig", func(p obj) []string { return []string{ref(p["FunctionName"])} }},
			{"AWS::Lambda::Url", func(p obj) []string { return []string{ref(p["TargetFunctionArn"])} }},
			{"AWS::Events::Rule", func(p obj) []string {
				var out []string
				for _, tg := range asList(p["Targets"]) {
					out = append(out, ref(tg.(obj)["Arn"]))
				}
				return out
			}},
			{"AWS::StepFunctions::StateMachine", func(p obj) []string { return refsAsTargets(p) }},
			{"AWS::ApiGateway::Authorizer", func(p obj) []string { return refsAsTargets(p) }},
		}
		for _, c := range cases {
			for id, r := range resources(tmpl, c.typ) {
				for _, target := range c.target(props(r)) {
					if names[target] {
						t.Errorf("%s %s invokes %s", c.typ, id, f.LogicalID)
					}
				}
			}
		}
		// No role of the stack may invoke it (the state machine's may invoke
		// the decision function only).
		for id, pol := range resources(tmpl, "AWS::IAM::Policy") {
			for _, st := range asList(props(pol)["PolicyDocument"].(obj)["Statement"]) {
				for _, r := range refsIn(st.(obj)["Resource"]) {
					if r == f.LogicalID {
						t.Errorf("policy %s names %s: %v", id, f.LogicalID, st)
					}
				}
			}
		}
	})
}

// refsAsTargets renders every Ref and GetAtt inside a value as ref does
// ("ref:X", "arn:X" for any attribute: only the resource matters here).
func refsAsTargets(v any) []string {
	var out []string
	for _, r := range refsIn(v) {
		out = append(out, "ref:"+r, "arn:"+r)
	}
	return out
}

// The admin function's role, spelled out: its grants from the catalogue
// (ConditionCheckItem on accounts for the transactions that check the
// account exists; the api_keys table and its by_account index), sending to
// the deliveries queue (redeliveries), writing its own logs, X-Ray.
// TestLeastPrivilege derives the same from the catalogue; this pins it.
func TestAdminFunctionPermissions(t *testing.T) {
	f := adminSpec(t)
	tmpl := dev(t).JSON
	got := rolePermissions(t, tmpl, f.LogicalID+"Role")
	want := []string{
		"dynamodb:GetItem arn:AccountsTable",
		"dynamodb:Query arn:AccountsTable",
		"dynamodb:Scan arn:AccountsTable",
		"dynamodb:PutItem arn:AccountsTable",
		"dynamodb:UpdateItem arn:AccountsTable",
		"dynamodb:ConditionCheckItem arn:AccountsTable",
		"dynamodb:GetItem arn:ApiKeysTable",
		"dynamodb:GetItem arn:ApiKeysTable/index/*",
		"dynamodb:Query arn:ApiKeysTable",
		"dynamodb:Query arn:ApiKeysTable/index/*",
		"dynamodb:PutItem arn:ApiKeysTable",
		"dynamodb:PutItem arn:ApiKeysTable/index/*",
		"dynamodb:UpdateItem arn:ApiKeysTable",
		"dynamodb:UpdateItem arn:ApiKeysTable/index/*",
		"dynamodb:UpdateItem arn:CountersTable",
		"dynamodb:GetItem arn:AuditTable",
		"dynamodb:GetItem arn:AuditTable/index/*",
		"dynamodb:Query arn:AuditTable",
		"dynamodb:Query arn:AuditTable/index/*",
		"dynamodb:PutItem arn:AuditTable",
		"dynamodb:PutItem arn:AuditTable/index/*",
		"dynamodb:GetItem arn:WebhookEndpointsTable",
		"dynamodb:Query arn:WebhookEndpointsTable",
		"dynamodb:PutItem arn:WebhookEndpointsTable",
		"dynamodb:DeleteItem arn:WebhookEndpointsTable",
		"dynamodb:GetItem arn:WebhookDeliveriesTable",
		"dynamodb:GetItem arn:WebhookDeliveriesTable/index/*",
		"dynamodb:Query arn:WebhookDeliveriesTable",
		"dynamodb:Query arn:WebhookDeliveriesTable/index/*",
		"dynamodb:PutItem arn:WebhookDeliveriesTable",
		"dynamodb:PutItem arn:WebhookDeliveriesTable/index/*",
		"dynamodb:UpdateItem arn:WebhookDeliveriesTable",
		"dynamodb:UpdateItem arn:WebhookDeliveriesTable/index/*",
		"sqs:SendMessage arn:DeliveriesQueue",
		"logs:CreateLogStream arn:AdminFunctionLogGroup",
		"logs:PutLogEvents arn:AdminFunctionLogGroup",
		"xray:PutTraceSegments *",
		"xray:PutTelemetryRecords *",
	}
	if !equal(got, want) {
		t.Errorf("permissions: %s", diff(got, want))
	}
	// Nothing beyond what the catalogue lists: no stream, no secret, no
	// table it does not name.
	for _, p := range got {
		for _, banned := range []string{"secretsmanager:", "StreamArn", "EntitiesTable", "ChecksTable", "ReviewsTable", "IdempotencyTable", "InboundWebhooksTable", "lambda:"} {
			if strings.Contains(p, banned) {
				t.Errorf("%s: the admin function has no business with %s", p, banned)
			}
		}
	}
}

// Its environment: exactly the catalogue's names, the deliveries queue's
// URL among them, and the webhook allow list empty in AWS.
func TestAdminFunctionEnvironment(t *testing.T) {
	f := adminSpec(t)
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		p := props(resource(t, s.JSON, f.LogicalID, "AWS::Lambda::Function"))
		env := p["Environment"].(obj)["Variables"].(obj)
		want := map[string]string{
			"LOG_LEVEL":                "info",
			"ACCOUNTS_TABLE":           "ref:AccountsTable",
			"API_KEYS_TABLE":           "ref:ApiKeysTable",
			"AUDIT_TABLE":              "ref:AuditTable",
			"COUNTERS_TABLE":           "ref:CountersTable",
			"WEBHOOK_ENDPOINTS_TABLE":  "ref:WebhookEndpointsTable",
			"WEBHOOK_DELIVERIES_TABLE": "ref:WebhookDeliveriesTable",
			"WEBHOOK_ALLOWED_NETWORKS": "",
			"DELIVERIES_QUEUE_URL":     "ref:DeliveriesQueue",
		}
		if !equal(keys(env), keys(want)) || !equal(f.EnvVarNames(), keys(want)) {
			t.Errorf("environment: %s (catalogue %v)", diff(keys(env), keys(want)), f.EnvVarNames())
		}
		for k, v := range want {
			if got := ref(env[k]); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
	})
}

// AdminFunctionName: the function's physical name, with a description
// telling how to invoke it.
func TestAdminFunctionOutput(t *testing.T) {
	f := adminSpec(t)
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		o, ok := s.JSON["Outputs"].(obj)[stack.AdminFunctionOutput].(obj)
		if !ok {
			t.Fatalf("no output %s", stack.AdminFunctionOutput)
		}
		if got := ref(o["Value"]); got != "ref:"+f.LogicalID {
			t.Errorf("value %s, want ref:%s (the function's name)", got, f.LogicalID)
		}
		desc, _ := o["Description"].(string)
		for _, w := range []string{"aws lambda invoke", "--function-name", `"command"`, `"actor"`, "--cli-binary-format raw-in-base64-out"} {
			if !strings.Contains(desc, w) {
				t.Errorf("description %q does not say %s", desc, w)
			}
		}
		if len(desc) > 1024 {
			t.Errorf("description is %d characters; CloudFormation takes 1024", len(desc))
		}
	})
}
