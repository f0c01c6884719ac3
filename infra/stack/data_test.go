package stack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

func keySchema(pk schema.Attr, sk *schema.Attr) []string {
	out := []string{pk.Name + " HASH"}
	if sk != nil && sk.Name != "" {
		out = append(out, sk.Name+" RANGE")
	}
	return out
}

func renderKeySchema(v any) []string {
	var out []string
	for _, k := range v.([]any) {
		k := k.(obj)
		out = append(out, fmt.Sprintf("%s %s", k["AttributeName"], k["KeyType"]))
	}
	return out
}

func renderIndex(v obj) string {
	p := v["Projection"].(obj)
	s := fmt.Sprintf("%s keys=%v projection=%v", v["IndexName"], renderKeySchema(v["KeySchema"]), p["ProjectionType"])
	if nk, ok := p["NonKeyAttributes"]; ok {
		s += fmt.Sprintf(" include=%v", strs(nk))
	}
	return s
}

func wantIndex(t schema.Table, ix schema.Index) string {
	pk := ix.PartitionKey
	if ix.Local {
		pk = t.PartitionKey
	}
	sk := ix.SortKey
	s := fmt.Sprintf("%s keys=%v projection=%v", ix.Name, keySchema(pk, &sk), ix.Projection)
	if ix.Projection == schema.ProjectInclude {
		s += fmt.Sprintf(" include=%v", ix.NonKeyAttrs)
	}
	return s
}

// Every table of shared/schema, exactly: keys, indexes, stream, TTL, and the
// same settings for all (on demand, PITR, AWS-managed encryption); prod
// retains and deletion-protects them.
func TestTables(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		tables := resources(s.JSON, "AWS::DynamoDB::Table")
		if len(tables) != len(schema.Tables()) {
			t.Errorf("%d tables, want %d: %v", len(tables), len(schema.Tables()), keys(tables))
		}
		retain := s.Props.Stage == stack.ProdStage
		for _, want := range schema.Tables() {
			t.Run(want.ID, func(t *testing.T) {
				r := resource(t, s.JSON, deploy.TableLogicalID(want.ID), "AWS::DynamoDB::Table")
				p := props(r)
				if got, w := renderKeySchema(p["KeySchema"]), keySchema(want.PartitionKey, want.SortKey); strings.Join(got, ",") != strings.Join(w, ",") {
					t.Errorf("KeySchema = %v, want %v", got, w)
				}

				// Attribute definitions: exactly the key attributes of the
				// table and its indexes, with their types.
				wantAttrs := map[string]string{want.PartitionKey.Name: string(want.PartitionKey.Type)}
				if want.SortKey != nil {
					wantAttrs[want.SortKey.Name] = string(want.SortKey.Type)
				}
				for _, ix := range want.Indexes {
					if !ix.Local {
						wantAttrs[ix.PartitionKey.Name] = string(ix.PartitionKey.Type)
					}
					if ix.SortKey.Name != "" {
						wantAttrs[ix.SortKey.Name] = string(ix.SortKey.Type)
					}
				}
				var gotAttrs, wantAttrList []string
				for _, a := range p["AttributeDefinitions"].([]any) {
					a := a.(obj)
					gotAttrs = append(gotAttrs, fmt.Sprintf("%s:%s", a["AttributeName"], a["AttributeType"]))
				}
				for n, typ := range wantAttrs {
					wantAttrList = append(wantAttrList, n+":"+typ)
				}
				if !equal(gotAttrs, wantAttrList) {
					t.Errorf("AttributeDefinitions: %s", diff(gotAttrs, wantAttrList))
				}

				var gotLocal, gotGlobal, wantLocal, wantGlobal []string
				for _, ix := range want.Indexes {
					if ix.Local {
						wantLocal = append(wantLocal, wantIndex(want, ix))
					} else {
						wantGlobal = append(wantGlobal, wantIndex(want, ix))
					}
				}
				for _, v := range asList(p["LocalSecondaryIndexes"]) {
					gotLocal = append(gotLocal, renderIndex(v.(obj)))
				}
				for _, v := range asList(p["GlobalSecondaryIndexes"]) {
					gotGlobal = append(gotGlobal, renderIndex(v.(obj)))
				}
				if !equal(gotLocal, wantLocal) {
					t.Errorf("LocalSecondaryIndexes: %s", diff(gotLocal, wantLocal))
				}
				if !equal(gotGlobal, wantGlobal) {
					t.Errorf("GlobalSecondaryIndexes: %s", diff(gotGlobal, wantGlobal))
				}

				gotStream := ""
				if ss, ok := p["StreamSpecification"].(obj); ok {
					gotStream = ss["StreamViewType"].(string)
				}
				if gotStream != string(want.Stream) {
					t.Errorf("stream view = %q, want %q", gotStream, want.Stream)
				}

				gotTTL := ""
				if ttl, ok := p["TimeToLiveSpecification"].(obj); ok {
					if ttl["Enabled"] != true {
						t.Errorf("TTL not enabled: %v", ttl)
					}
					gotTTL = ttl["AttributeName"].(string)
				}
				if gotTTL != want.TTLAttr {
					t.Errorf("TTL attribute = %q, want %q", gotTTL, want.TTLAttr)
				}

				if p["BillingMode"] != "PAY_PER_REQUEST" {
					t.Errorf("BillingMode = %v", p["BillingMode"])
				}
				if pitr, _ := p["PointInTimeRecoverySpecification"].(obj); pitr == nil || pitr["PointInTimeRecoveryEnabled"] != true {
					t.Errorf("PointInTimeRecoverySpecification = %v", p["PointInTimeRecoverySpecification"])
				}
				// AWS-managed key (alias/aws/dynamodb): SSE on, no key of ours.
				sse, _ := p["SSESpecification"].(obj)
				if sse == nil || sse["SSEEnabled"] != true || sse["KMSMasterKeyId"] != nil {
					t.Errorf("SSESpecification = %v, want SSEEnabled and no key of our own", sse)
				}
				if p["TableName"] != nil {
					t.Errorf("TableName = %v; CloudFormation names the tables", p["TableName"])
				}
				if p["DeletionProtectionEnabled"] != retain {
					t.Errorf("DeletionProtectionEnabled = %v, want %v", p["DeletionProtectionEnabled"], retain)
				}
				wantPolicy := map[bool]string{true: "Retain", false: "Delete"}[retain]
				if r["DeletionPolicy"] != wantPolicy || r["UpdateReplacePolicy"] != wantPolicy {
					t.Errorf("DeletionPolicy %v, UpdateReplacePolicy %v, want %s", r["DeletionPolicy"], r["UpdateReplacePolicy"], wantPolicy)
				}
			})
		}
	})
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// One secret per deploy.Secrets() entry, holding the placeholder, with a
// description telling the operator to put the real value in.
func TestSecrets(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		secrets := resources(s.JSON, "AWS::SecretsManager::Secret")
		var want []string
		for _, sec := range deploy.Secrets() {
			want = append(want, deploy.SecretLogicalID(sec.SecretID))
		}
		if !equal(keys(secrets), want) {
			t.Errorf("secrets: %s", diff(keys(secrets), want))
		}
		for _, sec := range deploy.Secrets() {
			r := resource(t, s.JSON, deploy.SecretLogicalID(sec.SecretID), "AWS::SecretsManager::Secret")
			p := props(r)
			if p["SecretString"] != stack.SecretPlaceholder || p["GenerateSecretString"] != nil {
				t.Errorf("%s: SecretString %v, GenerateSecretString %v; want the placeholder", sec.SecretID, p["SecretString"], p["GenerateSecretString"])
			}
			if d, _ := p["Description"].(string); !strings.Contains(d, "put the real value in") || !strings.Contains(d, sec.EnvVar) {
				t.Errorf("%s: description %q does not tell the operator what to do", sec.SecretID, d)
			}
			wantPolicy := map[bool]string{true: "Retain", false: "Delete"}[s.Props.Stage == stack.ProdStage]
			if r["DeletionPolicy"] != wantPolicy {
				t.Errorf("%s: DeletionPolicy %v, want %s", sec.SecretID, r["DeletionPolicy"], wantPolicy)
			}
		}
	})
}

// ApiUrl and one <TableLogicalID>Name output per table; and the stack's
// outputs are exactly those, the queues', the workflow's, the alarm topic's
// and the admin function's (each checked by its own test).
func TestOutputs(t *testing.T) {
	tmpl := dev(t).JSON
	outputs := tmpl["Outputs"].(obj)
	want := []string{"ApiUrl", "DecisionStateMachineArn", "DecisionApprovalTopicArn", "AlarmTopicArn", stack.AdminFunctionOutput}
	for _, tb := range schema.Tables() {
		want = append(want, deploy.TableLogicalID(tb.ID)+"Name")
	}
	for _, q := range deploy.Queues() {
		want = append(want, q.LogicalID+"Url")
	}
	var got []string
	for id, o := range outputs {
		// CDK's RestApi adds an output of its own, the stage URL again.
		if strings.HasPrefix(id, "ApiRestApiEndpoint") && outputs["ApiUrl"] != nil && ref(o.(obj)["Value"]) == ref(outputs["ApiUrl"].(obj)["Value"]) {
			continue
		}
		got = append(got, id)
		if d, _ := o.(obj)["Description"].(string); d == "" {
			t.Errorf("output %s has no description", id)
		}
	}
	if !equal(got, want) {
		t.Errorf("outputs: %s", diff(got, want))
	}
	apiURL, ok := outputs["ApiUrl"].(obj)
	if !ok {
		t.Fatal("no ApiUrl output")
	}
	stageID, _ := only(t, tmpl, "AWS::ApiGateway::Stage")
	restID, _ := only(t, tmpl, "AWS::ApiGateway::RestApi")
	if got := ref(apiURL["Value"]); got != "https://"+"ref:"+restID+".execute-api.ref:AWS::Region.ref:AWS::URLSuffix/ref:"+stageID+"/" {
		t.Errorf("ApiUrl = %s", got)
	}
	for _, tb := range schema.Tables() {
		id := deploy.TableLogicalID(tb.ID)
		o, ok := outputs[id+"Name"].(obj)
		if !ok || ref(o["Value"]) != "ref:"+id {
			t.Errorf("output %sName = %v, want the table's name", id, o)
		}
	}
}
