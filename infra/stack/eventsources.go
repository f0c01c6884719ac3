package stack

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// How the event sources read, the same in template.yaml (made from these).
const (
	// StreamStartingPosition: TRIM_HORIZON, the oldest record the stream
	// still holds (24 hours). The mapping is created after the table's
	// stream, possibly long after (a first deployment on an existing
	// table, a mapping replaced): LATEST would silently drop every review
	// change (or audit record, evidence item to lock) made in between,
	// whereas replaying is harmless, since every delivery has a
	// deterministic id and webhook-delivery claims it with a conditional
	// write, so a replayed change posts nothing twice, and audit-export
	// finds a replayed record's copy already in the records bucket.
	StreamStartingPosition = "TRIM_HORIZON"
	// ReportBatchItemFailures: the handlers name the records they could
	// not process (stream: the first failed SequenceNumber; queue: the
	// message ids), so one bad record is retried alone, never its batch.
	ReportBatchItemFailures = "ReportBatchItemFailures"
	// QueueMaxConcurrency caps the concurrent invocations an SQS source
	// may start. Each webhook-delivery invocation posts a batch of up to
	// BatchSize webhooks at once, so a burst of deliveries could otherwise
	// take up to 1,250 of the account's concurrent executions and throttle
	// the API's functions. Messages beyond the cap wait in the queue
	// without counting as receives (unlike reserved concurrency, whose
	// throttles would push messages towards the dead-letter queue).
	QueueMaxConcurrency = 10
)

// StreamMappingID and QueueMappingID are the logical ids of a function's
// event source mappings, as SAM names the one of an event (<function><event
// name>): ReviewEventsFunctionReviewsStream,
// WebhookDeliveryFunctionDeliveriesQueue.
func StreamMappingID(f deploy.Function, src deploy.StreamSource) string {
	return f.LogicalID + StreamName(src.Table)
}

func QueueMappingID(f deploy.Function) string {
	return f.LogicalID + deploy.MustQueue(f.Queue.Queue).LogicalID
}

// EventSourceMappingIDs are the logical ids of a function's event source
// mappings: one per stream, or its queue's; none without an event source.
func EventSourceMappingIDs(f deploy.Function) []string {
	var out []string
	for _, src := range f.Streams {
		out = append(out, StreamMappingID(f, src))
	}
	if f.Queue != nil {
		out = append(out, QueueMappingID(f))
	}
	return out
}

// StreamName is "ReviewsStream" for the reviews table: the stream's event
// source mapping and statement are named after it.
func StreamName(table string) string {
	return strings.TrimSuffix(deploy.TableLogicalID(table), "Table") + "Stream"
}

// EventSourcesProps configures the event source mappings.
type EventSourcesProps struct {
	// Functions maps function names to functions (Functions.Functions).
	Functions map[string]*Function
	// Tables maps schema table ids to their tables (Data.Tables).
	Tables map[string]awsdynamodb.Table
	// Queues maps queue ids to their queues (Queues.Queues).
	Queues map[string]awssqs.Queue
}

// EventSources holds the event source mappings.
type EventSources struct {
	constructs.Construct
	// Mappings maps the mappings' logical ids (EventSourceMappingIDs) to
	// the mappings.
	Mappings map[string]awslambda.CfnEventSourceMapping
}

// NewEventSources creates the event source mappings of the functions of
// deploy.Functions(): one per Stream source (StreamMappingID), or one for
// the Queue source (QueueMappingID):
//
//   - a stream: from StreamStartingPosition, the catalogue's batch size,
//     bisecting a failing batch, at most MaxRetries retries and records at
//     most MaxRecordAge old, then the batch's description to the OnFailure
//     queue; partial batch responses;
//   - a queue: the catalogue's batch size, partial batch responses, at
//     most QueueMaxConcurrency concurrent invocations.
//
// The mappings are CloudFormation resources written out, not CDK's event
// source classes, which would add their own grants (dynamodb:ListStreams on
// "*", sqs:GetQueueUrl, sqs:ChangeMessageVisibility) to the role: the
// function's permissions are Statements', and a mapping references its
// function, which CloudFormation creates after the role's policy, so the
// mapping's source can be read from its first poll.
func NewEventSources(scope constructs.Construct, id *string, props *EventSourcesProps) *EventSources {
	if props == nil {
		panic("infra: EventSourcesProps are required")
	}
	e := &EventSources{Construct: constructs.NewConstruct(scope, id), Mappings: map[string]awslambda.CfnEventSourceMapping{}}
	names := make([]string, 0, len(props.Functions))
	for name := range props.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	queue := func(spec deploy.Function, id string) awssqs.Queue {
		q, ok := props.Queues[id]
		if !ok {
			panic(fmt.Sprintf("infra: %s: queue %q, which the stack does not have", spec.Name, id))
		}
		return q
	}
	add := func(id string, mp *awslambda.CfnEventSourceMappingProps) {
		m := awslambda.NewCfnEventSourceMapping(e.Construct, jsii.String(id), mp)
		m.OverrideLogicalId(jsii.String(id))
		e.Mappings[id] = m
	}
	for _, name := range names {
		f := props.Functions[name]
		spec := f.Spec
		if len(spec.Streams) > 0 && spec.Queue != nil {
			panic(fmt.Sprintf("infra: %s has streams and a queue as event sources", spec.Name))
		}
		for _, src := range spec.Streams {
			t, ok := props.Tables[src.Table]
			if !ok || t.TableStreamArn() == nil {
				panic(fmt.Sprintf("infra: %s: table %q has no stream in the stack", spec.Name, src.Table))
			}
			mp := &awslambda.CfnEventSourceMappingProps{
				FunctionName:               f.Function.FunctionName(),
				EventSourceArn:             t.TableStreamArn(),
				StartingPosition:           jsii.String(StreamStartingPosition),
				BatchSize:                  jsii.Number(float64(src.BatchSize)),
				BisectBatchOnFunctionError: jsii.Bool(true),
				MaximumRetryAttempts:       jsii.Number(float64(src.MaxRetries)),
				MaximumRecordAgeInSeconds:  jsii.Number(float64(src.MaxRecordAge)),
				FunctionResponseTypes:      jsii.Strings(ReportBatchItemFailures),
			}
			if src.OnFailure != "" {
				mp.DestinationConfig = &awslambda.CfnEventSourceMapping_DestinationConfigProperty{
					OnFailure: &awslambda.CfnEventSourceMapping_OnFailureProperty{Destination: queue(spec, src.OnFailure).QueueArn()},
				}
			}
			add(StreamMappingID(spec, src), mp)
		}
		if src := spec.Queue; src != nil {
			add(QueueMappingID(spec), &awslambda.CfnEventSourceMappingProps{
				FunctionName:          f.Function.FunctionName(),
				EventSourceArn:        queue(spec, src.Queue).QueueArn(),
				BatchSize:             jsii.Number(float64(src.BatchSize)),
				FunctionResponseTypes: jsii.Strings(ReportBatchItemFailures),
				ScalingConfig: &awslambda.CfnEventSourceMapping_ScalingConfigProperty{
					MaximumConcurrency: jsii.Number(QueueMaxConcurrency),
				},
			})
		}
	}
	return e
}
