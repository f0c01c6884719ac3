package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// QueuesProps configures the queues.
type QueuesProps struct {
	// Retain keeps the queues (and the messages they hold) when the stack
	// is deleted (every stage but an ephemeral one).
	Retain bool
}

// Queues holds the SQS queues of deploy.Queues().
type Queues struct {
	constructs.Construct
	// Queues maps deploy.Queue.ID to its queue.
	Queues map[string]awssqs.Queue
}

// QueuePolicyLogicalID is the logical id of a queue's resource policy (the
// SSL-only statement), the same in template.yaml.
func QueuePolicyLogicalID(queueLogicalID string) string { return queueLogicalID + "Policy" }

// NewQueues creates one standard queue per deploy.Queues() entry under its
// catalogue logical id: SQS-managed server-side encryption (SSE-SQS, so
// neither the senders nor the consumers need a KMS permission), a resource
// policy that denies every request not made over TLS (enforceSSL), the
// catalogue's retention and visibility timeout, and, with DeadLetter, a
// redrive policy to that queue after MaxReceiveCount receives.
// CloudFormation names the queues; functions get the URLs in their
// environment.
func NewQueues(scope constructs.Construct, id *string, props *QueuesProps) *Queues {
	if props == nil {
		props = &QueuesProps{}
	}
	q := &Queues{Construct: constructs.NewConstruct(scope, id), Queues: map[string]awssqs.Queue{}}
	specs := map[string]deploy.Queue{}
	for _, spec := range deploy.Queues() {
		specs[spec.ID] = spec
	}
	// A queue's dead-letter queue is created before it.
	var create func(spec deploy.Queue, path []string) awssqs.Queue
	create = func(spec deploy.Queue, path []string) awssqs.Queue {
		if made, ok := q.Queues[spec.ID]; ok {
			return made
		}
		for _, p := range path {
			if p == spec.ID {
				panic(fmt.Sprintf("infra: queue %s: its dead-letter queues form a cycle %v", spec.ID, append(path, spec.ID)))
			}
		}
		qp := &awssqs.QueueProps{
			Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:        jsii.Bool(true),
			RetentionPeriod:   awscdk.Duration_Days(jsii.Number(float64(spec.RetentionDays))),
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(float64(spec.VisibilityTimeoutSeconds))),
			RemovalPolicy:     removal(props.Retain),
		}
		if spec.DeadLetter != "" {
			dl, ok := specs[spec.DeadLetter]
			if !ok {
				panic(fmt.Sprintf("infra: queue %s: dead-letter queue %q is not in deploy.Queues()", spec.ID, spec.DeadLetter))
			}
			if spec.MaxReceiveCount < 1 {
				panic(fmt.Sprintf("infra: queue %s: MaxReceiveCount %d", spec.ID, spec.MaxReceiveCount))
			}
			qp.DeadLetterQueue = &awssqs.DeadLetterQueue{
				Queue:           create(dl, append(path, spec.ID)),
				MaxReceiveCount: jsii.Number(float64(spec.MaxReceiveCount)),
			}
		}
		queue := awssqs.NewQueue(q.Construct, jsii.String(spec.LogicalID), qp)
		overrideID(queue, spec.LogicalID)
		if p, ok := queue.Node().TryFindChild(jsii.String("Policy")).(awssqs.QueuePolicy); ok && p != nil {
			overrideID(p, QueuePolicyLogicalID(spec.LogicalID))
		}
		q.Queues[spec.ID] = queue
		return queue
	}
	for _, spec := range deploy.Queues() {
		create(spec, nil)
	}
	return q
}
