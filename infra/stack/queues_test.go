package stack_test

import (
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Every queue of deploy.Queues(), and no other, under its catalogue logical
// id: SQS-managed encryption (no KMS key), CloudFormation's name, the
// catalogue's retention and visibility timeout, the redrive policy to its
// dead-letter queue exactly when it has one; kept with a prod stack.
func TestQueues(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		queues := resources(s.JSON, "AWS::SQS::Queue")
		var want []string
		for _, q := range deploy.Queues() {
			want = append(want, q.LogicalID)
		}
		if !equal(keys(queues), want) {
			t.Errorf("queues: %s", diff(keys(queues), want))
		}
		for _, q := range deploy.Queues() {
			t.Run(q.ID, func(t *testing.T) {
				r := resource(t, s.JSON, q.LogicalID, "AWS::SQS::Queue")
				p := props(r)
				if p["SqsManagedSseEnabled"] != true || p["KmsMasterKeyId"] != nil {
					t.Errorf("encryption: SqsManagedSseEnabled %v, KmsMasterKeyId %v; want SSE-SQS", p["SqsManagedSseEnabled"], p["KmsMasterKeyId"])
				}
				for _, k := range []string{"QueueName", "FifoQueue", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "RedriveAllowPolicy"} {
					if p[k] != nil {
						t.Errorf("%s = %v, want it unset", k, p[k])
					}
				}
				if got, want := p["MessageRetentionPeriod"], float64(q.RetentionDays*86400); got != want {
					t.Errorf("MessageRetentionPeriod = %v, want %v (%d days)", got, want, q.RetentionDays)
				}
				if got, want := p["VisibilityTimeout"], float64(q.VisibilityTimeoutSeconds); got != want {
					t.Errorf("VisibilityTimeout = %v, want %v", got, want)
				}
				if q.DeadLetter == "" {
					if p["RedrivePolicy"] != nil {
						t.Errorf("RedrivePolicy = %v, want none", p["RedrivePolicy"])
					}
				} else {
					dl, _ := deploy.LookupQueue(q.DeadLetter)
					rp, _ := p["RedrivePolicy"].(obj)
					if len(rp) != 2 || ref(rp["deadLetterTargetArn"]) != "arn:"+dl.LogicalID || rp["maxReceiveCount"] != float64(q.MaxReceiveCount) {
						t.Errorf("RedrivePolicy = %v, want %s after %d receives", rp, dl.LogicalID, q.MaxReceiveCount)
					}
					// SQS keeps a message's first enqueue time when it moves
					// it to the dead-letter queue: a shorter retention there
					// would drop it early.
					if dl.RetentionDays < q.RetentionDays {
						t.Errorf("dead-letter queue %s keeps messages %d days, less than %s's %d", dl.ID, dl.RetentionDays, q.ID, q.RetentionDays)
					}
				}
				wantPolicy := map[bool]string{true: "Retain", false: "Delete"}[s.Props.Stage == stack.ProdStage]
				if r["DeletionPolicy"] != wantPolicy || r["UpdateReplacePolicy"] != wantPolicy {
					t.Errorf("DeletionPolicy %v, UpdateReplacePolicy %v, want %s", r["DeletionPolicy"], r["UpdateReplacePolicy"], wantPolicy)
				}
			})
		}
	})
}

// A queue a function consumes hides a received message for at least six
// times the function's timeout (Lambda's advice for SQS sources), so a
// message is never received again while a batch holding it may still run.
func TestQueueVisibilityCoversConsumer(t *testing.T) {
	tmpl := dev(t).JSON
	consumers := 0
	for _, f := range deploy.Functions() {
		if f.Queue == nil {
			continue
		}
		consumers++
		q, ok := deploy.LookupQueue(f.Queue.Queue)
		if !ok {
			t.Fatalf("%s consumes unknown queue %q", f.Name, f.Queue.Queue)
		}
		timeout := props(resource(t, tmpl, f.LogicalID, "AWS::Lambda::Function"))["Timeout"].(float64)
		visibility := props(resource(t, tmpl, q.LogicalID, "AWS::SQS::Queue"))["VisibilityTimeout"].(float64)
		if visibility < 6*timeout {
			t.Errorf("%s: VisibilityTimeout %v s, less than 6 × %s's timeout (%v s)", q.ID, visibility, f.Name, timeout)
		}
	}
	if consumers == 0 {
		t.Fatal("no function consumes a queue")
	}
}

// Each queue has one resource policy, with one statement: deny every SQS
// action on it to anyone when the request does not come over TLS.
func TestQueuesRefuseInsecureTransport(t *testing.T) {
	tmpl := dev(t).JSON
	policies := resources(tmpl, "AWS::SQS::QueuePolicy")
	var want []string
	for _, q := range deploy.Queues() {
		want = append(want, stack.QueuePolicyLogicalID(q.LogicalID))
	}
	if !equal(keys(policies), want) {
		t.Errorf("queue policies: %s", diff(keys(policies), want))
	}
	for _, q := range deploy.Queues() {
		p := props(resource(t, tmpl, stack.QueuePolicyLogicalID(q.LogicalID), "AWS::SQS::QueuePolicy"))
		if got := strs(p["Queues"]); len(got) != 1 || got[0] != "ref:"+q.LogicalID {
			t.Errorf("%s: policy of %v", q.ID, got)
		}
		st := asList(p["PolicyDocument"].(obj)["Statement"])
		if len(st) != 1 {
			t.Errorf("%s: %d statements, want 1", q.ID, len(st))
			continue
		}
		s := st[0].(obj)
		if s["Effect"] != "Deny" || ref(s["Action"]) != "sqs:*" || ref(s["Principal"]) != `{"AWS":"*"}` ||
			ref(s["Resource"]) != "arn:"+q.LogicalID || ref(s["Condition"]) != `{"Bool":{"aws:SecureTransport":"false"}}` {
			t.Errorf("%s: statement %v", q.ID, s)
		}
	}
}

// One <QueueLogicalID>Url output per queue, and the alarm topic's ARN.
func TestQueueOutputs(t *testing.T) {
	tmpl := dev(t).JSON
	outputs := tmpl["Outputs"].(obj)
	for _, q := range deploy.Queues() {
		o, ok := outputs[q.LogicalID+"Url"].(obj)
		if !ok || ref(o["Value"]) != "ref:"+q.LogicalID {
			t.Errorf("output %sUrl = %v, want the queue's URL", q.LogicalID, o)
		}
	}
	if o, ok := outputs["AlarmTopicArn"].(obj); !ok || ref(o["Value"]) != "ref:"+alarmTopic(t, tmpl) {
		t.Errorf("output AlarmTopicArn = %v", o)
	}
}
