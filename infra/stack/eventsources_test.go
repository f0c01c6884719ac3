package stack_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// The event source mappings, property for property (tags aside): each
// stream into its function from the trim horizon, bisecting, bounded
// retries and record age, the batches that still fail to the failure
// queue, partial batch responses (the reviews stream into review-events;
// the audit and evidence streams into audit-export, one mapping each);
// the deliveries queue into webhook-delivery with partial batch responses
// and a concurrency cap. Exactly these, named as SAM names them.
func TestEventSourceMappings(t *testing.T) {
	tests := []struct {
		id, function string
		stream       string // a table id, or "" for the function's queue
	}{
		{"ReviewEventsFunctionReviewsStream", "review-events", schema.Reviews},
		{"AuditExportFunctionAuditStream", "audit-export", schema.Audit},
		{"AuditExportFunctionEvidenceStream", "audit-export", schema.Evidence},
		{"WebhookDeliveryFunctionDeliveriesQueue", "webhook-delivery", ""},
	}
	want := map[string]m{}
	var ids []string
	for _, f := range deploy.Functions() {
		ids = append(ids, stack.EventSourceMappingIDs(f)...)
	}
	for _, tc := range tests {
		f := deploy.MustFunction(tc.function)
		if tc.stream == "" {
			if f.Queue == nil {
				t.Fatalf("the catalogue's %s has no queue", f.Name)
			}
			q := deploy.MustQueue(f.Queue.Queue)
			want[tc.id] = m{
				"FunctionName":          refOf(f.LogicalID),
				"EventSourceArn":        arnOf(q.LogicalID),
				"BatchSize":             f.Queue.BatchSize,
				"FunctionResponseTypes": listOf("ReportBatchItemFailures"),
				"ScalingConfig":         exactly(m{"MaximumConcurrency": stack.QueueMaxConcurrency}),
			}
			continue
		}
		i := slices.IndexFunc(f.Streams, func(s deploy.StreamSource) bool { return s.Table == tc.stream })
		if i < 0 {
			t.Fatalf("the catalogue's %s reads no stream of %s", f.Name, tc.stream)
		}
		src := f.Streams[i]
		if got := stack.StreamMappingID(f, src); got != tc.id {
			t.Errorf("StreamMappingID(%s, %s) = %s, want %s", f.Name, src.Table, got, tc.id)
		}
		// A stream record older than the stream keeps is gone anyway: the
		// record age bound must not exceed the stream's 24 hours.
		if a := src.MaxRecordAge; a < 60 || a > 86400 {
			t.Errorf("%s: MaxRecordAge %d s: want 60 s to 24 h", tc.id, a)
		}
		want[tc.id] = m{
			"FunctionName":               refOf(f.LogicalID),
			"EventSourceArn":             getAtt(deploy.TableLogicalID(src.Table), "StreamArn"),
			"StartingPosition":           "TRIM_HORIZON",
			"BatchSize":                  src.BatchSize,
			"BisectBatchOnFunctionError": true,
			"MaximumRetryAttempts":       src.MaxRetries,
			"MaximumRecordAgeInSeconds":  src.MaxRecordAge,
			"DestinationConfig":          exactly(m{"OnFailure": exactly(m{"Destination": arnOf(deploy.MustQueue(src.OnFailure).LogicalID)})}),
			"FunctionResponseTypes":      listOf("ReportBatchItemFailures"),
		}
	}
	if !equal(ids, keys(want)) {
		t.Errorf("the catalogue's mappings: %s", diff(ids, keys(want)))
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::Lambda::EventSourceMapping", len(want))
		for id, w := range want {
			w["Tags"] = assertions.Match_AnyValue()
			hasResource(t, s.Template, id, "AWS::Lambda::EventSourceMapping", m{"Properties": exactly(w)})
		}
	})
}

// CloudFormation creates a mapping only after its function's role may read
// the source: the mapping references the function, which depends on the
// role's policy.
func TestEventSourceMappingsWaitForPermissions(t *testing.T) {
	tmpl := dev(t).Template
	for id, mapping := range find(t, tmpl, "AWS::Lambda::EventSourceMapping", nil) {
		fn, _ := mapping["Properties"].(m)["FunctionName"].(m)["Ref"].(string)
		if fn == "" {
			t.Errorf("%s: FunctionName is no Ref", id)
			continue
		}
		hasResource(t, tmpl, fn, "AWS::Lambda::Function", m{"DependsOn": arrayWith(fn + "RoleDefaultPolicy")})
	}
}

// The pipeline's permissions, spelled out: review-events reads exactly the
// reviews table's stream (by its stream ARN) and sends to exactly the
// deliveries queue and its failure queue; audit-export reads exactly the
// audit and evidence tables' streams and sends to exactly its failure
// queue; webhook-delivery consumes exactly the deliveries queue; admin and
// settings send to exactly the deliveries queue (redeliveries, test
// events). TestLeastPrivilege holds every role to exactly its
// permissions; this also checks no other role may touch the queues or the
// stream.
func TestPipelinePermissions(t *testing.T) {
	tmpl := dev(t).Template
	want := map[string][]string{
		"ReviewEventsFunctionRole": {
			"dynamodb:DescribeStream getatt:ReviewsTable.StreamArn",
			"dynamodb:GetRecords getatt:ReviewsTable.StreamArn",
			"dynamodb:GetShardIterator getatt:ReviewsTable.StreamArn",
			"dynamodb:ListStreams getatt:ReviewsTable.StreamArn",
			"sqs:SendMessage arn:DeliveriesQueue",
			"sqs:SendMessage arn:ReviewEventsFailureQueue",
		},
		"AuditExportFunctionRole": {
			"dynamodb:DescribeStream getatt:AuditTable.StreamArn",
			"dynamodb:GetRecords getatt:AuditTable.StreamArn",
			"dynamodb:GetShardIterator getatt:AuditTable.StreamArn",
			"dynamodb:ListStreams getatt:AuditTable.StreamArn",
			"dynamodb:DescribeStream getatt:EvidenceTable.StreamArn",
			"dynamodb:GetRecords getatt:EvidenceTable.StreamArn",
			"dynamodb:GetShardIterator getatt:EvidenceTable.StreamArn",
			"dynamodb:ListStreams getatt:EvidenceTable.StreamArn",
			"sqs:SendMessage arn:AuditExportFailureQueue",
		},
		"WebhookDeliveryFunctionRole": {
			"sqs:ReceiveMessage arn:DeliveriesQueue",
			"sqs:DeleteMessage arn:DeliveriesQueue",
			"sqs:GetQueueAttributes arn:DeliveriesQueue",
		},
		"AdminFunctionRole": {
			"sqs:SendMessage arn:DeliveriesQueue",
		},
		"WebFunctionRole": {
			"sqs:SendMessage arn:DeliveriesQueue",
		},
	}
	streamActions := map[string]bool{"dynamodb:DescribeStream": true, "dynamodb:GetRecords": true, "dynamodb:GetShardIterator": true, "dynamodb:ListStreams": true}
	sensitive := map[string]bool{}
	for _, tb := range schema.Tables() {
		if tb.Stream != "" {
			sensitive["getatt:"+deploy.TableLogicalID(tb.ID)+".StreamArn"] = true
		}
	}
	for _, q := range deploy.Queues() {
		sensitive["arn:"+q.LogicalID] = true
		sensitive["ref:"+q.LogicalID] = true
	}
	got := map[string][]string{}
	for id, pol := range find(t, tmpl, "AWS::IAM::Policy", nil) {
		props := pol["Properties"].(m)
		for _, st := range props["PolicyDocument"].(m)["Statement"].([]any) {
			st := st.(m)
			for _, a := range strs(st["Action"]) {
				for _, r := range strs(st["Resource"]) {
					if !sensitive[r] && !strings.HasPrefix(a, "sqs:") && !streamActions[a] {
						continue
					}
					roles := strs(props["Roles"])
					if len(roles) != 1 {
						t.Errorf("%s: %s on %s for roles %v", id, a, r, roles)
						continue
					}
					role := strings.TrimPrefix(roles[0], "ref:")
					got[role] = append(got[role], a+" "+r)
				}
			}
		}
	}
	if !equal(keys(got), keys(want)) {
		t.Errorf("roles with queue or stream permissions: %s", diff(keys(got), keys(want)))
	}
	for role, w := range want {
		if !equal(got[role], w) {
			t.Errorf("%s: %s", role, diff(got[role], w))
		}
	}
}
