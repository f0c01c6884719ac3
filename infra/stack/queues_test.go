package stack_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

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
		countIs(t, s.Template, "AWS::SQS::Queue", len(deploy.Queues()))
		retention := map[bool]string{true: "Retain", false: "Delete"}[!s.Props.Ephemeral]
		for _, q := range deploy.Queues() {
			t.Run(q.ID, func(t *testing.T) {
				props := m{
					"SqsManagedSseEnabled":   true,
					"KmsMasterKeyId":         absent(),
					"MessageRetentionPeriod": q.RetentionDays * 86400,
					"VisibilityTimeout":      q.VisibilityTimeoutSeconds,
					"RedrivePolicy":          absent(),
				}
				for _, k := range []string{"QueueName", "FifoQueue", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "RedriveAllowPolicy"} {
					props[k] = absent()
				}
				if q.DeadLetter != "" {
					dl := deploy.MustQueue(q.DeadLetter)
					props["RedrivePolicy"] = exactly(m{"deadLetterTargetArn": arnOf(dl.LogicalID), "maxReceiveCount": q.MaxReceiveCount})
					// SQS keeps a message's first enqueue time when it moves
					// it to the dead-letter queue: a shorter retention there
					// would drop it early.
					if dl.RetentionDays < q.RetentionDays {
						t.Errorf("dead-letter queue %s keeps messages %d days, less than %s's %d", dl.ID, dl.RetentionDays, q.ID, q.RetentionDays)
					}
				}
				hasResource(t, s.Template, q.LogicalID, "AWS::SQS::Queue", m{
					"Properties":          like(props),
					"DeletionPolicy":      retention,
					"UpdateReplacePolicy": retention,
				})
			})
		}
	})
}

// A queue a function consumes hides a received message for at least six
// times the function's timeout (Lambda's advice for SQS sources), so a
// message is never received again while a batch holding it may still run.
func TestQueueVisibilityCoversConsumer(t *testing.T) {
	tmpl := dev(t).Template
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
		timeout, visibility := assertions.NewCapture(nil), assertions.NewCapture(nil)
		capture(t, tmpl, f.LogicalID, "AWS::Lambda::Function", "Timeout", timeout)
		capture(t, tmpl, q.LogicalID, "AWS::SQS::Queue", "VisibilityTimeout", visibility)
		if v, to := *visibility.AsNumber(), *timeout.AsNumber(); v < 6*to {
			t.Errorf("%s: VisibilityTimeout %v s, less than 6 × %s's timeout (%v s)", q.ID, v, f.Name, to)
		}
	}
	if consumers == 0 {
		t.Fatal("no function consumes a queue")
	}
}

// Each queue has one resource policy, with one statement: deny every SQS
// action on it to anyone when the request does not come over TLS.
func TestQueuesRefuseInsecureTransport(t *testing.T) {
	tmpl := dev(t).Template
	countIs(t, tmpl, "AWS::SQS::QueuePolicy", len(deploy.Queues()))
	for _, q := range deploy.Queues() {
		hasProps(t, tmpl, stack.QueuePolicyLogicalID(q.LogicalID), "AWS::SQS::QueuePolicy", m{
			"Queues": arrayOf(refOf(q.LogicalID)),
			"PolicyDocument": like(m{"Statement": arrayOf(like(m{
				"Effect":    "Deny",
				"Action":    "sqs:*",
				"Principal": exactly(m{"AWS": "*"}),
				"Resource":  arnOf(q.LogicalID),
				"Condition": exactly(m{"Bool": exactly(m{"aws:SecureTransport": "false"})}),
			}))}),
		})
	}
}

// One <QueueLogicalID>Url output per queue, and the alarm topic's ARN.
func TestQueueOutputs(t *testing.T) {
	s := dev(t)
	for _, q := range deploy.Queues() {
		hasOutput(t, s.Template, q.LogicalID+"Url", m{"Value": refOf(q.LogicalID)})
	}
	hasOutput(t, s.Template, "AlarmTopicArn", m{"Value": refOf(alarmTopic(t, s.Template))})
}
