package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// The two event source mappings, property for property (tags aside): the
// reviews stream into review-events from the trim horizon, bisecting,
// bounded retries and record age, the batches that still fail to the
// failure queue, partial batch responses; the deliveries queue into
// webhook-delivery with partial batch responses and a concurrency cap.
func TestEventSourceMappings(t *testing.T) {
	reviewEvents, _ := deploy.Lookup("review-events")
	delivery, _ := deploy.Lookup("webhook-delivery")
	if reviewEvents.Stream == nil || delivery.Queue == nil {
		t.Fatal("the catalogue's review-events has no stream or webhook-delivery no queue")
	}
	failures, _ := deploy.LookupQueue(reviewEvents.Stream.OnFailure)
	deliveries, _ := deploy.LookupQueue(delivery.Queue.Queue)
	want := map[string]m{
		"ReviewEventsFunctionReviewsStream": {
			"FunctionName":               refOf("ReviewEventsFunction"),
			"EventSourceArn":             getAtt("ReviewsTable", "StreamArn"),
			"StartingPosition":           "TRIM_HORIZON",
			"BatchSize":                  reviewEvents.Stream.BatchSize,
			"BisectBatchOnFunctionError": true,
			"MaximumRetryAttempts":       reviewEvents.Stream.MaxRetries,
			"MaximumRecordAgeInSeconds":  reviewEvents.Stream.MaxRecordAge,
			"DestinationConfig":          exactly(m{"OnFailure": exactly(m{"Destination": arnOf(failures.LogicalID)})}),
			"FunctionResponseTypes":      listOf("ReportBatchItemFailures"),
		},
		"WebhookDeliveryFunctionDeliveriesQueue": {
			"FunctionName":          refOf("WebhookDeliveryFunction"),
			"EventSourceArn":        arnOf(deliveries.LogicalID),
			"BatchSize":             delivery.Queue.BatchSize,
			"FunctionResponseTypes": listOf("ReportBatchItemFailures"),
			"ScalingConfig":         exactly(m{"MaximumConcurrency": stack.QueueMaxConcurrency}),
		},
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::Lambda::EventSourceMapping", len(want))
		for id, w := range want {
			w["Tags"] = assertions.Match_AnyValue()
			hasResource(t, s.Template, id, "AWS::Lambda::EventSourceMapping", m{"Properties": exactly(w)})
		}
	})
	// The catalogue's logical ids are SAM's names for the events.
	if got := stack.EventSourceMappingID(reviewEvents); got != "ReviewEventsFunctionReviewsStream" {
		t.Errorf("EventSourceMappingID(review-events) = %s", got)
	}
	// A stream record older than the stream keeps is gone anyway: the
	// record age bound must not exceed the stream's 24 hours.
	if a := reviewEvents.Stream.MaxRecordAge; a < 60 || a > 86400 {
		t.Errorf("MaxRecordAge %d s: want 60 s to 24 h", a)
	}
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
// deliveries queue and its failure queue; webhook-delivery consumes exactly
// the deliveries queue; admin and settings send to exactly the deliveries
// queue (redeliveries, test events). TestLeastPrivilege holds every role to exactly its
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
		"WebhookDeliveryFunctionRole": {
			"sqs:ReceiveMessage arn:DeliveriesQueue",
			"sqs:DeleteMessage arn:DeliveriesQueue",
			"sqs:GetQueueAttributes arn:DeliveriesQueue",
		},
		"AdminFunctionRole": {
			"sqs:SendMessage arn:DeliveriesQueue",
		},
		"SettingsFunctionRole": {
			"sqs:SendMessage arn:DeliveriesQueue",
		},
	}
	streamActions := map[string]bool{"dynamodb:DescribeStream": true, "dynamodb:GetRecords": true, "dynamodb:GetShardIterator": true, "dynamodb:ListStreams": true}
	sensitive := map[string]bool{"getatt:ReviewsTable.StreamArn": true}
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
