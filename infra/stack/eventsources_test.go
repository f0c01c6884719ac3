package stack_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// rendered turns every intrinsic in a value into ref's short string, so a
// resource's properties compare as plain JSON.
func rendered(v any) any {
	switch x := v.(type) {
	case obj:
		if _, ok := x["Ref"]; ok {
			return ref(x)
		}
		if _, ok := x["Fn::GetAtt"]; ok {
			return ref(x)
		}
		if _, ok := x["Fn::Join"]; ok {
			return ref(x)
		}
		out := obj{}
		for k, y := range x {
			out[k] = rendered(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = rendered(y)
		}
		return out
	}
	return v
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

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
	want := map[string]obj{
		"ReviewEventsFunctionReviewsStream": {
			"FunctionName":               "ref:ReviewEventsFunction",
			"EventSourceArn":             "getatt:ReviewsTable.StreamArn",
			"StartingPosition":           "TRIM_HORIZON",
			"BatchSize":                  float64(reviewEvents.Stream.BatchSize),
			"BisectBatchOnFunctionError": true,
			"MaximumRetryAttempts":       float64(reviewEvents.Stream.MaxRetries),
			"MaximumRecordAgeInSeconds":  float64(reviewEvents.Stream.MaxRecordAge),
			"DestinationConfig":          obj{"OnFailure": obj{"Destination": "arn:" + failures.LogicalID}},
			"FunctionResponseTypes":      []any{"ReportBatchItemFailures"},
		},
		"WebhookDeliveryFunctionDeliveriesQueue": {
			"FunctionName":          "ref:WebhookDeliveryFunction",
			"EventSourceArn":        "arn:" + deliveries.LogicalID,
			"BatchSize":             float64(delivery.Queue.BatchSize),
			"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
			"ScalingConfig":         obj{"MaximumConcurrency": float64(stack.QueueMaxConcurrency)},
		},
	}
	for _, tmpl := range []obj{dev(t).JSON, prod(t).JSON} {
		mappings := resources(tmpl, "AWS::Lambda::EventSourceMapping")
		if !equal(keys(mappings), keys(want)) {
			t.Errorf("event source mappings: %s", diff(keys(mappings), keys(want)))
		}
		for id, w := range want {
			p := props(resource(t, tmpl, id, "AWS::Lambda::EventSourceMapping"))
			delete(p, "Tags")
			if got := jsonOf(rendered(p)); got != jsonOf(w) {
				t.Errorf("%s:\n got  %s\n want %s", id, got, jsonOf(w))
			}
		}
	}
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
	tmpl := dev(t).JSON
	for id, m := range resources(tmpl, "AWS::Lambda::EventSourceMapping") {
		fn := strings.TrimPrefix(ref(props(m)["FunctionName"]), "ref:")
		deps := strs(resource(t, tmpl, fn, "AWS::Lambda::Function")["DependsOn"])
		found := false
		for _, d := range deps {
			found = found || d == fn+"RoleDefaultPolicy"
		}
		if !found {
			t.Errorf("%s: function %s does not depend on %sRoleDefaultPolicy (DependsOn %v)", id, fn, fn, deps)
		}
	}
}

// The pipeline's permissions, spelled out: review-events reads exactly the
// reviews table's stream (by its stream ARN) and sends to exactly the
// deliveries queue and its failure queue; webhook-delivery consumes exactly
// the deliveries queue; admin sends to exactly the deliveries queue
// (redeliveries). TestLeastPrivilege holds every role to exactly its
// permissions; this also checks no other role may touch the queues or the
// stream.
func TestPipelinePermissions(t *testing.T) {
	tmpl := dev(t).JSON
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
	}
	streamActions := map[string]bool{"dynamodb:DescribeStream": true, "dynamodb:GetRecords": true, "dynamodb:GetShardIterator": true, "dynamodb:ListStreams": true}
	sensitive := map[string]bool{"getatt:ReviewsTable.StreamArn": true}
	for _, q := range deploy.Queues() {
		sensitive["arn:"+q.LogicalID] = true
		sensitive["ref:"+q.LogicalID] = true
	}
	got := map[string][]string{}
	for id, pol := range resources(tmpl, "AWS::IAM::Policy") {
		for _, st := range asList(props(pol)["PolicyDocument"].(obj)["Statement"]) {
			st := st.(obj)
			for _, a := range strs(st["Action"]) {
				for _, r := range strs(st["Resource"]) {
					if !sensitive[r] && !strings.HasPrefix(a, "sqs:") && !streamActions[a] {
						continue
					}
					roles := strs(props(pol)["Roles"])
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
