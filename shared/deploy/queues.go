package deploy

import (
	"fmt"
)

// Queue ids.
const (
	// QueueDeliveries carries one message per delivery, from review-events
	// (and redeliveries) to webhook-delivery.
	QueueDeliveries = "deliveries"
	// QueueDeliveriesDLQ receives delivery messages that failed
	// MaxReceiveCount times (the delivery function could not even record
	// them: DynamoDB unreachable, a malformed message).
	QueueDeliveriesDLQ = "deliveries_dlq"
	// QueueReviewEventsFailures is review-events' on-failure destination:
	// stream records that still failed after the bounded retries.
	QueueReviewEventsFailures = "review_events_failures"
	// QueueAuditExportFailures is audit-export's on-failure destination,
	// for both its streams (a failure names its stream's ARN).
	QueueAuditExportFailures = "audit_export_failures"
)

// Queue is an SQS queue of the service.
type Queue struct {
	ID string
	// LogicalID is its CloudFormation logical id.
	LogicalID string
	// EnvVar holds its URL in the environment of the functions that send to it.
	EnvVar string
	// Description says what it carries (the stacks' outputs of its URL).
	Description              string
	VisibilityTimeoutSeconds int
	RetentionDays            int
	// DeadLetter and MaxReceiveCount: where a message goes after failing
	// that many receives.
	DeadLetter      string
	MaxReceiveCount int
}

// Queues lists the service's queues.
func Queues() []Queue {
	delivery := MustFunction("webhook-delivery")
	return []Queue{
		{
			ID: QueueDeliveries, LogicalID: "DeliveriesQueue", EnvVar: "DELIVERIES_QUEUE_URL",
			Description: "the deliveries queue (review-events to webhook-delivery)",
			// Six times the consumer's timeout, as Lambda advises for SQS
			// sources: a message is never visible again while a batch holding
			// it may still run.
			VisibilityTimeoutSeconds: 6 * delivery.TimeoutSeconds, RetentionDays: 4,
			DeadLetter: QueueDeliveriesDLQ, MaxReceiveCount: 5,
		},
		{ID: QueueDeliveriesDLQ, LogicalID: "DeliveriesDeadLetterQueue", VisibilityTimeoutSeconds: 30, RetentionDays: 14,
			Description: "the deliveries' dead-letter queue; redrive it with aws sqs start-message-move-task"},
		{ID: QueueReviewEventsFailures, LogicalID: "ReviewEventsFailureQueue", VisibilityTimeoutSeconds: 30, RetentionDays: 14,
			Description: "review-events' on-failure queue (descriptions of stream batches that failed)"},
		{ID: QueueAuditExportFailures, LogicalID: "AuditExportFailureQueue", VisibilityTimeoutSeconds: 30, RetentionDays: 14,
			Description: "audit-export's on-failure queue (descriptions of audit and evidence stream batches that failed)"},
	}
}

// QueueByID returns the queue id, or an error naming it.
func QueueByID(id string) (Queue, error) {
	if q, ok := LookupQueue(id); ok {
		return q, nil
	}
	return Queue{}, fmt.Errorf("deploy: no queue %q in Queues()", id)
}

// MustQueue is QueueByID for initialization: a miss is a programming
// error, so it panics rather than hand back a zero Queue.
func MustQueue(id string) Queue { return must(QueueByID(id)) }

// LookupQueue returns the queue id.
func LookupQueue(id string) (Queue, bool) {
	for _, q := range Queues() {
		if q.ID == id {
			return q, true
		}
	}
	return Queue{}, false
}
