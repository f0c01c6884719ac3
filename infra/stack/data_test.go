package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// keySchema is a KeySchema of a partition and an optional sort key.
func keySchema(pk schema.Attr, sk *schema.Attr) assertions.Matcher {
	keys := []any{exactly(m{"AttributeName": pk.Name, "KeyType": "HASH"})}
	if sk != nil && sk.Name != "" {
		keys = append(keys, exactly(m{"AttributeName": sk.Name, "KeyType": "RANGE"}))
	}
	return arrayOf(keys...)
}

// indexes matches a table's local or global indexes, in the schema's
// order, or their absence.
func indexes(t schema.Table, local bool) assertions.Matcher {
	var out []any
	for _, ix := range t.Indexes {
		if ix.Local != local {
			continue
		}
		pk := ix.PartitionKey
		if ix.Local {
			pk = t.PartitionKey
		}
		projection := m{"ProjectionType": string(ix.Projection), "NonKeyAttributes": absent()}
		if ix.Projection == schema.ProjectInclude {
			projection["NonKeyAttributes"] = listOf(ix.NonKeyAttrs...)
		}
		out = append(out, exactly(m{"IndexName": ix.Name, "KeySchema": keySchema(pk, &ix.SortKey), "Projection": exactly(projection)}))
	}
	if len(out) == 0 {
		return absent()
	}
	return arrayOf(out...)
}

// attributes matches the AttributeDefinitions: exactly the key attributes
// of the table and its indexes, each once, with their types.
func attributes(t schema.Table) assertions.Matcher {
	var out []any
	seen := map[string]bool{}
	add := func(a schema.Attr) {
		if a.Name != "" && !seen[a.Name] {
			seen[a.Name] = true
			out = append(out, exactly(m{"AttributeName": a.Name, "AttributeType": string(a.Type)}))
		}
	}
	add(t.PartitionKey)
	if t.SortKey != nil {
		add(*t.SortKey)
	}
	for _, ix := range t.Indexes {
		if !ix.Local {
			add(ix.PartitionKey)
		}
		add(ix.SortKey)
	}
	return arrayOf(out...)
}

// Every table of shared/schema, exactly: keys, indexes, stream, TTL, and the
// same settings for all (on demand, PITR, AWS-managed encryption but for a
// table with a customer-managed key of its own, rotated and always
// retained); prod retains and deletion-protects them.
func TestTables(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::DynamoDB::Table", len(schema.Tables()))
		retain := !s.Props.Ephemeral
		policy := removalPolicy(retain)
		for _, want := range schema.Tables() {
			t.Run(want.ID, func(t *testing.T) {
				stream, ttl := any(absent()), any(absent())
				if want.Stream != "" {
					stream = exactly(m{"StreamViewType": string(want.Stream)})
				}
				if want.TTLAttr != "" {
					ttl = exactly(m{"AttributeName": want.TTLAttr, "Enabled": true})
				}
				// AWS-managed key (alias/aws/dynamodb): SSE on, no key of
				// ours; or a customer-managed key of the table's own.
				sse := any(exactly(m{"SSEEnabled": true}))
				if want.CustomerKey {
					keyID := stack.TableKeyLogicalID(want.ID)
					sse = exactly(m{"SSEEnabled": true, "SSEType": "KMS", "KMSMasterKeyId": m{"Fn::GetAtt": []any{keyID, "Arn"}}})
					// Kept on every stage: it encrypts a bucket's objects
					// too, which outlive the stack.
					hasResource(t, s.Template, keyID, "AWS::KMS::Key", m{
						"Properties":          like(m{"EnableKeyRotation": true}),
						"DeletionPolicy":      "Retain",
						"UpdateReplacePolicy": "Retain",
					})
				}
				hasResource(t, s.Template, deploy.TableLogicalID(want.ID), "AWS::DynamoDB::Table", m{
					"Properties": like(m{
						"KeySchema":                        keySchema(want.PartitionKey, want.SortKey),
						"AttributeDefinitions":             attributes(want),
						"LocalSecondaryIndexes":            indexes(want, true),
						"GlobalSecondaryIndexes":           indexes(want, false),
						"StreamSpecification":              stream,
						"TimeToLiveSpecification":          ttl,
						"BillingMode":                      "PAY_PER_REQUEST",
						"PointInTimeRecoverySpecification": like(m{"PointInTimeRecoveryEnabled": true}),
						"SSESpecification":                 sse,
						// CloudFormation names the tables.
						"TableName":                 absent(),
						"DeletionProtectionEnabled": retain,
					}),
					"DeletionPolicy":      policy,
					"UpdateReplacePolicy": policy,
				})
			})
		}
	})
}

// removalPolicy is the DeletionPolicy of what prod keeps.
func removalPolicy(retain bool) string {
	return map[bool]string{true: "Retain", false: "Delete"}[retain]
}

// One secret per deploy.Secrets() entry, holding the placeholder, with a
// description telling the operator to put the real value in.
func TestSecrets(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::SecretsManager::Secret", len(deploy.Secrets()))
		for _, sec := range deploy.Secrets() {
			hasResource(t, s.Template, deploy.SecretLogicalID(sec.SecretID), "AWS::SecretsManager::Secret", m{
				"Properties": like(m{
					"SecretString":         stack.SecretPlaceholder,
					"GenerateSecretString": absent(),
					"Description":          stringLike("put the real value in.*" + sec.EnvVar + "|" + sec.EnvVar + ".*put the real value in"),
				}),
				"DeletionPolicy": removalPolicy(!s.Props.Ephemeral),
			})
		}
	})
}

// ApiUrl, OpenApiUrl (ApiUrl + openapi.yaml), SettingsUrl (ApiUrl +
// settings/), ConsoleUrl (ApiUrl + console/) and one <TableLogicalID>Name
// output per table; and the stack's outputs are exactly those, the
// queues', the workflow's, the alarm topic's and the admin function's (each
// checked by its own test), each described.
func TestOutputs(t *testing.T) {
	tmpl := dev(t).Template
	want := []string{"ApiUrl", stack.OpenAPIURLOutput, stack.SettingsURLOutput, stack.ConsoleURLOutput, "DecisionStateMachineArn", "DecisionApprovalTopicArn", "AlarmTopicArn", stack.AdminFunctionOutput}
	for _, tb := range schema.Tables() {
		id := deploy.TableLogicalID(tb.ID)
		want = append(want, id+"Name")
		hasOutput(t, tmpl, id+"Name", m{"Value": refOf(id)})
	}
	for _, q := range deploy.Queues() {
		want = append(want, q.LogicalID+"Url")
	}
	for _, b := range deploy.Buckets() {
		want = append(want, stack.BucketOutput(b)) // TestBuckets checks its value
	}
	want = append(want, stack.AccessLogsOutput()) // TestAccessLogsBucket checks its value
	stageID, restID := onlyID(t, tmpl, "AWS::ApiGateway::Stage"), onlyID(t, tmpl, "AWS::ApiGateway::RestApi")
	apiURL := m{"Fn::Join": []any{"", []any{"https://", refOf(restID), ".execute-api.", refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(stageID), "/"}}}
	hasOutput(t, tmpl, "ApiUrl", m{"Value": apiURL})
	// The stage URL's join with the description's path after it.
	openAPIURL := m{"Fn::Join": []any{"", []any{"https://", refOf(restID), ".execute-api.", refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(stageID), deploy.OpenAPIPath}}}
	hasOutput(t, tmpl, stack.OpenAPIURLOutput, m{"Value": openAPIURL})
	// The settings area's root, as its links and pages name it.
	settingsURL := m{"Fn::Join": []any{"", []any{"https://", refOf(restID), ".execute-api.", refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(stageID), deploy.SettingsPath + "/"}}}
	hasOutput(t, tmpl, stack.SettingsURLOutput, m{"Value": settingsURL, "Description": stringLike("portal\\.link")})
	// The console's root, where operators sign in with their passkeys.
	consoleURL := m{"Fn::Join": []any{"", []any{"https://", refOf(restID), ".execute-api.", refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(stageID), deploy.ConsolePath + "/"}}}
	hasOutput(t, tmpl, stack.ConsoleURLOutput, m{"Value": consoleURL, "Description": stringLike("portal\\.link.*PasskeyRpId")})
	// Each opened by anyone, without a key: a public GET of the settings
	// function.
	for _, path := range []string{deploy.SettingsPath + "/", deploy.ConsolePath + "/"} {
		served := false
		for _, r := range deploy.Routes() {
			if _, ok := deploy.MatchPath(r.Path, path); ok && r.Method == "GET" {
				served = r.Function == "web" && r.Public
			}
		}
		if !served {
			t.Errorf("GET %s is no public route of the web function", path)
		}
	}

	var got []string
	for id, o := range *tmpl.FindOutputs(jsii.String("*"), nil) {
		// CDK's RestApi adds an output of its own, the stage URL again.
		if strings.HasPrefix(id, "ApiRestApiEndpoint") && isLike(*o, like(m{"Value": apiURL})) {
			continue
		}
		got = append(got, id)
		matches(t, "output "+id, *o, like(m{"Description": stringLike(".")}))
	}
	if !equal(got, want) {
		t.Errorf("outputs: %s", diff(got, want))
	}
}

// Retention is a setting, not a stage's name: the stage named production
// keeps every stateful resource and deletion-protects its tables, as any
// stage not marked ephemeral; the ephemeral dev stage lets them go with
// its stack but for its buckets and keys.
func TestRetentionIsASettingNotAName(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		for _, b := range stacktest.RetentionBreaches(s.JSON, !s.Props.Ephemeral) {
			t.Error(b)
		}
	})
}
