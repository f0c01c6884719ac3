package stack_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

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
// event source mapping, no rule, not the state machine, no role's policy).
func TestAdminFunctionHasNoTrigger(t *testing.T) {
	f := adminSpec(t)
	if _, ok := f.Route(); ok || len(f.Streams) > 0 || f.Queue != nil {
		t.Fatalf("catalogue: %s has a route or an event source (streams %v, queue %v)", f.Name, f.Streams, f.Queue)
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		hasResource(t, s.Template, f.LogicalID, "AWS::Lambda::Function", m{})
		for _, typ := range []string{
			"AWS::ApiGateway::Method", "AWS::ApiGateway::Authorizer", "AWS::Lambda::Permission",
			"AWS::Lambda::EventSourceMapping", "AWS::Lambda::EventInvokeConfig", "AWS::Lambda::Url",
			"AWS::Events::Rule", "AWS::StepFunctions::StateMachine",
			// The state machine's role may invoke the decision function only.
			"AWS::IAM::Policy",
		} {
			for _, id := range referencing(t, s.Template, typ, f.LogicalID) {
				t.Errorf("%s %s names %s", typ, id, f.LogicalID)
			}
		}
	})
}

// referencing lists the resources of a type whose properties Ref or GetAtt
// the resource id anywhere.
func referencing(t *testing.T, tmpl assertions.Template, typ, id string) []string {
	t.Helper()
	var out []string
	for rid, r := range find(t, tmpl, typ, nil) {
		for _, target := range refsIn(r["Properties"]) {
			if target == id {
				out = append(out, rid)
				break
			}
		}
	}
	return out
}

// The admin function's role, spelled out: its grants from the catalogue
// (ConditionCheckItem on accounts for the transactions that check the
// account exists; the api_keys table and its by_account index; putting
// sign-in links), sending to the deliveries queue (redeliveries), writing
// its own logs, X-Ray.
// TestLeastPrivilege derives the same from the catalogue; this pins it.
func TestAdminFunctionPermissions(t *testing.T) {
	f := adminSpec(t)
	got := rolePermissions(t, dev(t).Template, f.LogicalID+"Role")
	want := []string{
		"dynamodb:GetItem arn:AccountsTable",
		"dynamodb:Query arn:AccountsTable",
		"dynamodb:Scan arn:AccountsTable",
		"dynamodb:PutItem arn:AccountsTable",
		"dynamodb:UpdateItem arn:AccountsTable",
		// passkey.revoke.
		"dynamodb:DeleteItem arn:AccountsTable",
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
		"dynamodb:Query arn:AuditExportsTable",
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
		"dynamodb:PutItem arn:PortalTokensTable",
		"dynamodb:GetItem arn:EvidenceTable",
		// A legal hold moves the expiry of every item of the entity aside
		// and back: an UpdateItem of those attributes alone where the role
		// writes nothing else (TestRetentionUpdatesAreConditioned); it
		// finds the entity's reviews by their by_entity index.
		"dynamodb:UpdateItem arn:EvidenceTable",
		"dynamodb:UpdateItem arn:AuditTable",
		"dynamodb:UpdateItem arn:ChecksTable",
		"dynamodb:UpdateItem arn:EntitiesTable",
		"dynamodb:UpdateItem arn:ReviewsTable",
		"dynamodb:Query arn:ReviewsTable",
		"dynamodb:Query arn:ReviewsTable/index/*",
		// evidence.get compares the check's own record of the hash; a
		// legal hold lists the entity's checks (by_entity, read back).
		"dynamodb:GetItem arn:ChecksTable",
		"dynamodb:GetItem arn:ChecksTable/index/*",
		"dynamodb:Query arn:ChecksTable",
		"dynamodb:Query arn:ChecksTable/index/*",
		"dynamodb:BatchGetItem arn:ChecksTable",
		"dynamodb:BatchGetItem arn:ChecksTable/index/*",
		// The entity audit.verify, audit.list or a legal hold names.
		"dynamodb:GetItem arn:EntitiesTable",
		// evidence.get: a body kept in the evidence bucket, and the
		// bucket key's decryption (only through S3, for that bucket).
		"s3:GetObject arn:EvidenceBucket/*",
		"kms:Decrypt arn:EvidenceTableKey",
		// Verification against the locked copies (any version), audit.export
		// and audit.extend (dated, tagged puts, as audit-export's) and legal
		// holds on the records bucket; its key's use for the reads and the
		// puts.
		"s3:PutObject arn:RecordsBucket/*",
		"s3:PutObjectRetention arn:RecordsBucket/*",
		"s3:PutObjectTagging arn:RecordsBucket/*",
		"s3:GetObject arn:RecordsBucket/*",
		"s3:GetObjectVersion arn:RecordsBucket/*",
		"s3:PutObjectLegalHold arn:RecordsBucket/*",
		"s3:ListBucket arn:RecordsBucket",
		"s3:ListBucketVersions arn:RecordsBucket",
		"kms:GenerateDataKey arn:RecordsBucketKey",
		"kms:Decrypt arn:RecordsBucketKey",
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
	// table it does not name (of the checks, entities and reviews, reads
	// and the expiry's updates only).
	for _, p := range got {
		if strings.Contains(p, "ChecksTable") || strings.Contains(p, "EntitiesTable") || strings.Contains(p, "ReviewsTable") {
			continue
		}
		for _, banned := range []string{"secretsmanager:", "StreamArn", "IdempotencyTable", "InboundWebhooksTable", "lambda:"} {
			if strings.Contains(p, banned) {
				t.Errorf("%s: the admin function has no business with %s", p, banned)
			}
		}
	}
}

// Its environment: exactly the catalogue's names, the deliveries queue's
// URL among them, the webhook allow list empty in AWS, and the settings
// area's base URL (where portal.link's sign-in links lead) the stage's own
// URL without a trailing slash unless the stack was given one (the prod
// fixture's custom domain).
func TestAdminFunctionEnvironment(t *testing.T) {
	f := adminSpec(t)
	want := m{
		"LOG_LEVEL":                "info",
		"ACCOUNTS_TABLE":           refOf("AccountsTable"),
		"API_KEYS_TABLE":           refOf("ApiKeysTable"),
		"AUDIT_TABLE":              refOf("AuditTable"),
		"AUDIT_EXPORTS_TABLE":      refOf("AuditExportsTable"),
		"COUNTERS_TABLE":           refOf("CountersTable"),
		"WEBHOOK_ENDPOINTS_TABLE":  refOf("WebhookEndpointsTable"),
		"WEBHOOK_DELIVERIES_TABLE": refOf("WebhookDeliveriesTable"),
		"WEBHOOK_ALLOWED_NETWORKS": "",
		"DELIVERIES_QUEUE_URL":     refOf("DeliveriesQueue"),
		"PORTAL_TOKENS_TABLE":      refOf("PortalTokensTable"),
		"EVIDENCE_TABLE":           refOf("EvidenceTable"),
		"CHECKS_TABLE":             refOf("ChecksTable"),
		"ENTITIES_TABLE":           refOf("EntitiesTable"),
		"REVIEWS_TABLE":            refOf("ReviewsTable"),
		"EVIDENCE_BUCKET":          refOf("EvidenceBucket"),
		"RECORDS_BUCKET":           refOf("RecordsBucket"),
		"SETTINGS_BASE_URL":        nil, // per stack, below
		// audit.verify checks decisions' signatures for the console's
		// domain: empty until the stage names it.
		"PASSKEY_RP_ID":   "",
		"PASSKEY_ORIGINS": "",
	}
	if !equal(f.EnvVarNames(), keys(want)) {
		t.Errorf("catalogue: environment %s", diff(f.EnvVarNames(), keys(want)))
	}
	settingsURL := map[string]any{
		stack.DefaultStage: m{"Fn::Join": []any{"", []any{"https://", refOf(onlyID(t, dev(t).Template, "AWS::ApiGateway::RestApi")), ".execute-api.",
			refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(onlyID(t, dev(t).Template, "AWS::ApiGateway::Stage"))}}},
		stack.ProdStage: "https://kyb.example.com",
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		want["SETTINGS_BASE_URL"] = settingsURL[s.Props.Stage]
		hasProps(t, s.Template, f.LogicalID, "AWS::Lambda::Function", m{"Environment": exactly(m{"Variables": exactly(want)})})
	})
}

// AdminFunctionName: the function's physical name, with a description
// telling how to invoke it, within CloudFormation's 1024 characters.
func TestAdminFunctionOutput(t *testing.T) {
	f := adminSpec(t)
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		hasOutput(t, s.Template, stack.AdminFunctionOutput, m{"Value": refOf(f.LogicalID), "Description": stringLike(`^[\s\S]{1,1024}$`)})
		for _, w := range []string{"aws lambda invoke", "--function-name", `"command"`, `"actor"`, "--cli-binary-format raw-in-base64-out"} {
			hasOutput(t, s.Template, stack.AdminFunctionOutput, m{"Description": stringLike(regexp.QuoteMeta(w))})
		}
	})
}

// Where the admin and decision functions may only date an entity's items
// (the audit trail and evidence, append-only; what else the role does not
// write), their UpdateItem may name the item's key and its expiry alone
// (IAM's dynamodb:Attributes): a legal hold can take an expiry off and put
// it back, the end of a relationship set it, never change the item.
func TestRetentionUpdatesAreConditioned(t *testing.T) {
	tests := []struct {
		table    string
		key      []any
		policies int // the admin's and the decision's, or the admin's alone
	}{
		{"EvidenceTable", []any{"account_id", "check_id"}, 2},
		{"AuditTable", []any{"account_id", "action_id"}, 2},
		{"ChecksTable", []any{"account_id", "check_id"}, 2},
		{"EntitiesTable", []any{"account_id", "entity_id"}, 1},
		{"ReviewsTable", []any{"account_id", "review_id"}, 1},
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		for _, tc := range tests {
			attrs := append(append([]any{}, tc.key...), "expires_at", "held_expires_at")
			got := find(t, s.Template, "AWS::IAM::Policy", m{"PolicyDocument": like(m{"Statement": arrayWith(like(m{
				"Action":   "dynamodb:UpdateItem",
				"Resource": arnOf(tc.table),
				"Condition": exactly(m{
					"ForAllValues:StringEquals": exactly(m{"dynamodb:Attributes": arrayOf(attrs...)}),
					"StringEqualsIfExists":      exactly(m{"dynamodb:ReturnValues": arrayOf("NONE", "UPDATED_OLD", "UPDATED_NEW")}),
				}),
			}))})})
			if len(got) != tc.policies {
				t.Errorf("%s: %d policies hold the conditioned UpdateItem, want %d", tc.table, len(got), tc.policies)
			}
		}
	})
}
