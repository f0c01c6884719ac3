package stack_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// settingsSpec is the web function's catalogue entry: the settings area
// and the operator console.
func settingsSpec(t *testing.T) deploy.Function {
	t.Helper()
	f, ok := deploy.Lookup("web")
	if !ok {
		t.Fatal("the catalogue has no function settings")
	}
	return f
}

// The web function's role, spelled out: the settings area's grants, and
// what the console's code paths call (passkeys, ceremonies, sessions, the
// queue and a claim through store.ApplyDecision, dossiers, approvals
// waiting); sending to the deliveries queue (redeliveries, test events);
// the decision workflow (starting an execution, reading it, answering an
// approval task); its own logs, X-Ray. TestLeastPrivilege derives the same
// from the catalogue; this pins it.
func TestWebFunctionPermissions(t *testing.T) {
	f := settingsSpec(t)
	got := rolePermissions(t, dev(t).Template, f.LogicalID+"Role")
	want := []string{
		// Links, sessions, ceremonies.
		"dynamodb:GetItem arn:PortalTokensTable",
		"dynamodb:PutItem arn:PortalTokensTable",
		"dynamodb:UpdateItem arn:PortalTokensTable",
		"dynamodb:DeleteItem arn:PortalTokensTable",
		"dynamodb:GetItem arn:AccountsTable",
		// The queue's count shards, in one BatchGetItem.
		"dynamodb:BatchGetItem arn:AccountsTable",
		"dynamodb:Query arn:AccountsTable",
		"dynamodb:PutItem arn:AccountsTable",
		"dynamodb:UpdateItem arn:AccountsTable",
		// A passkey removed, a refused approval.
		"dynamodb:DeleteItem arn:AccountsTable",
		"dynamodb:ConditionCheckItem arn:AccountsTable",
		"dynamodb:UpdateItem arn:CountersTable",
		"dynamodb:GetItem arn:AuditTable",
		"dynamodb:GetItem arn:AuditTable/index/*",
		// An entity's trail.
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
		// The queue, a review, a dossier's reviews; a claim.
		"dynamodb:GetItem arn:ReviewsTable",
		"dynamodb:GetItem arn:ReviewsTable/index/*",
		"dynamodb:Query arn:ReviewsTable",
		"dynamodb:Query arn:ReviewsTable/index/*",
		"dynamodb:BatchGetItem arn:ReviewsTable",
		"dynamodb:BatchGetItem arn:ReviewsTable/index/*",
		"dynamodb:UpdateItem arn:ReviewsTable",
		"dynamodb:UpdateItem arn:ReviewsTable/index/*",
		// A dossier's entity, the queue's entities; a claim.
		"dynamodb:GetItem arn:EntitiesTable",
		"dynamodb:BatchGetItem arn:EntitiesTable",
		"dynamodb:UpdateItem arn:EntitiesTable",
		// A dossier's checks; one check, and its provider's answer (the
		// evidence item, or its object; read only).
		"dynamodb:GetItem arn:ChecksTable",
		"dynamodb:GetItem arn:ChecksTable/index/*",
		// A review page checks its trail against the chain's exports.
		"dynamodb:Query arn:AuditExportsTable",
		"dynamodb:GetItem arn:EvidenceTable",
		"kms:Decrypt arn:EvidenceTableKey",
		"s3:GetObject arn:EvidenceBucket/*",
		"dynamodb:Query arn:ChecksTable",
		"dynamodb:Query arn:ChecksTable/index/*",
		"dynamodb:BatchGetItem arn:ChecksTable",
		"dynamodb:BatchGetItem arn:ChecksTable/index/*",
		"sqs:SendMessage arn:DeliveriesQueue",
		// The decision workflow: this state machine and its executions.
		"states:StartExecution ref:" + stack.DecisionStateMachineID,
		"states:SendTaskSuccess ref:" + stack.DecisionStateMachineID,
		"states:SendTaskFailure ref:" + stack.DecisionStateMachineID,
		"states:DescribeExecution " + decisionExecutions,
		"logs:CreateLogStream arn:WebFunctionLogGroup",
		"logs:PutLogEvents arn:WebFunctionLogGroup",
		"xray:PutTraceSegments *",
		"xray:PutTelemetryRecords *",
	}
	if !equal(got, want) {
		t.Errorf("permissions: %s", diff(got, want))
	}
	// Nothing of what only other functions do: no secret, no stream, no
	// write of evidence or use of a key but to read it, no scan, no write
	// of a check, no other function.
	for _, p := range got {
		for _, banned := range []string{"secretsmanager:", "StreamArn", "PutItem arn:EvidenceTable", "UpdateItem arn:EvidenceTable",
			"s3:PutObject", "s3:DeleteObject", "kms:Encrypt", "kms:GenerateDataKey", "RecordsBucket", "dynamodb:Scan",
			"PutItem arn:ChecksTable", "PutItem arn:ReviewsTable", "PutItem arn:EntitiesTable", "ApiKeysTable", "IdempotencyTable", "lambda:"} {
			if strings.Contains(p, banned) {
				t.Errorf("%s: the web function has no business with %s", p, banned)
			}
		}
	}
}

// Its environment: exactly the catalogue's names, the deliveries queue's
// URL and the decision state machine's ARN among them, the webhook allow
// list empty in AWS, and the console's relying party (its domain and
// origins) empty until the stage names it.
func TestWebFunctionEnvironment(t *testing.T) {
	f := settingsSpec(t)
	want := m{
		"LOG_LEVEL":                    "info",
		"PORTAL_TOKENS_TABLE":          refOf("PortalTokensTable"),
		"ACCOUNTS_TABLE":               refOf("AccountsTable"),
		"COUNTERS_TABLE":               refOf("CountersTable"),
		"AUDIT_TABLE":                  refOf("AuditTable"),
		"AUDIT_EXPORTS_TABLE":          refOf("AuditExportsTable"),
		"WEBHOOK_ENDPOINTS_TABLE":      refOf("WebhookEndpointsTable"),
		"WEBHOOK_DELIVERIES_TABLE":     refOf("WebhookDeliveriesTable"),
		"REVIEWS_TABLE":                refOf("ReviewsTable"),
		"ENTITIES_TABLE":               refOf("EntitiesTable"),
		"CHECKS_TABLE":                 refOf("ChecksTable"),
		"EVIDENCE_TABLE":               refOf("EvidenceTable"),
		"EVIDENCE_BUCKET":              refOf("EvidenceBucket"),
		"WEBHOOK_ALLOWED_NETWORKS":     "",
		"PASSKEY_RP_ID":                "",
		"PASSKEY_ORIGINS":              "",
		"DELIVERIES_QUEUE_URL":         refOf("DeliveriesQueue"),
		deploy.DecisionStateMachineVar: refOf(stack.DecisionStateMachineID),
	}
	if !equal(f.EnvVarNames(), keys(want)) {
		t.Errorf("catalogue: environment %s", diff(f.EnvVarNames(), keys(want)))
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		hasProps(t, s.Template, f.LogicalID, "AWS::Lambda::Function", m{"Environment": exactly(m{"Variables": exactly(want)})})
	})
}

// Step Functions is the console's alone: of every policy in the stack,
// only the web function's role has a states: action, and exactly
// StartExecution, SendTaskSuccess and SendTaskFailure on the decision
// state machine and DescribeExecution on its executions; no other
// function, and not the state machine's own role, may start, read or
// answer an execution, and none on "*".
func TestOnlyTheConsoleDrivesTheWorkflow(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		got := map[string][]string{}
		for id, pol := range find(t, s.Template, "AWS::IAM::Policy", nil) {
			props := pol["Properties"].(m)
			for _, st := range props["PolicyDocument"].(m)["Statement"].([]any) {
				st := st.(m)
				for _, a := range strs(st["Action"]) {
					if !strings.HasPrefix(a, "states:") {
						continue
					}
					roles := strs(props["Roles"])
					if len(roles) != 1 {
						t.Errorf("%s: %s for roles %v", id, a, roles)
						continue
					}
					role := strings.TrimPrefix(roles[0], "ref:")
					for _, r := range strs(st["Resource"]) {
						got[role] = append(got[role], a+" "+r)
					}
				}
			}
		}
		for _, typ := range []string{"AWS::IAM::ManagedPolicy", "AWS::IAM::User", "AWS::IAM::Group"} {
			countIs(t, s.Template, typ, 0)
		}
		want := map[string][]string{
			"WebFunctionRole": {
				"states:StartExecution ref:" + stack.DecisionStateMachineID,
				"states:SendTaskSuccess ref:" + stack.DecisionStateMachineID,
				"states:SendTaskFailure ref:" + stack.DecisionStateMachineID,
				"states:DescribeExecution " + decisionExecutions,
			},
		}
		if !equal(keys(got), keys(want)) {
			t.Errorf("roles with Step Functions permissions: %s", diff(keys(got), keys(want)))
		}
		for role, w := range want {
			if !equal(got[role], w) {
				t.Errorf("%s: %s", role, diff(got[role], w))
			}
		}
		// The state machine's ARN is in the environment of the function
		// that drives it, and of no other.
		for id, fn := range find(t, s.Template, "AWS::Lambda::Function", nil) {
			env, _ := fn["Properties"].(m)["Environment"].(m)
			vars, _ := env["Variables"].(m)
			_, told := vars[deploy.DecisionStateMachineVar]
			if told != (id == settingsSpec(t).LogicalID) {
				t.Errorf("%s: told %s: %v", id, deploy.DecisionStateMachineVar, told)
			}
		}
	})
}
