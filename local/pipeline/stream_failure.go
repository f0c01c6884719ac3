package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// FailureRecord is the JSON document Lambda sends a stream mapping's
// on-failure destination: where the discarded records are, not the records.
type FailureRecord struct {
	RequestContext     FailureRequestContext  `json:"requestContext"`
	ResponseContext    FailureResponseContext `json:"responseContext"`
	Version            string                 `json:"version"`
	Timestamp          string                 `json:"timestamp"`
	DDBStreamBatchInfo DDBStreamBatchInfo     `json:"DDBStreamBatchInfo"`
}

// FailureRequestContext says which invocation failed and why.
type FailureRequestContext struct {
	RequestID              string `json:"requestId"`
	FunctionARN            string `json:"functionArn"`
	Condition              string `json:"condition"`
	ApproximateInvokeCount int    `json:"approximateInvokeCount"`
}

// FailureResponseContext is what the last invocation answered.
type FailureResponseContext struct {
	StatusCode      int    `json:"statusCode"`
	ExecutedVersion string `json:"executedVersion"`
	// FunctionError is "Unhandled" when the last attempt returned an error,
	// absent when it reported a batch item failure.
	FunctionError string `json:"functionError,omitempty"`
}

// DDBStreamBatchInfo locates the discarded records in the stream: here
// always one record, the one the bisection converged on.
type DDBStreamBatchInfo struct {
	ShardID                         string `json:"shardId"`
	StartSequenceNumber             string `json:"startSequenceNumber"`
	EndSequenceNumber               string `json:"endSequenceNumber"`
	ApproximateArrivalOfFirstRecord string `json:"approximateArrivalOfFirstRecord"`
	ApproximateArrivalOfLastRecord  string `json:"approximateArrivalOfLastRecord"`
	BatchSize                       int    `json:"batchSize"`
	StreamArn                       string `json:"streamArn"`
}

// ConditionRetriesExhausted is the failure record's condition after the
// bounded retries.
const ConditionRetriesExhausted = "RetryAttemptsExhausted"

// FailureQueue is an OnFailure that sends the record, as JSON, to the SQS
// queue at url (the review_events_failures queue, locally in ElasticMQ).
func FailureQueue(client *sqs.Client, url string) func(context.Context, FailureRecord) error {
	return func(ctx context.Context, f FailureRecord) error {
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		_, err = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(body))})
		return err
	}
}

// giveUp sends the on-failure record of the record at the checkpoint and
// moves past it. If the destination refuses it, the record stays and the
// delivery is tried again on the next pass: nothing is dropped silently.
func (p *StreamPoller) giveUp(ctx context.Context, log *slog.Logger, arn string, sh *shard) {
	r := sh.buf[0]
	f := p.failureRecord(arn, sh, r)
	log.Error("stream record discarded after retries", "sequence_number", seq(r), "event_id", aws.ToString(r.EventID),
		"approximate_invoke_count", sh.failures, "failure", f)
	if p.OnFailure != nil {
		// Sent even while stopping: it settles the batch under way.
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := p.OnFailure(octx, f)
		cancel()
		if err != nil {
			log.Error("on-failure destination refused the failure record", "sequence_number", seq(r), "error", err.Error())
			Sleep(ctx, p.backoff())
			return
		}
	}
	// Only now, the record described in the on-failure queue, is it done.
	p.ack(log, arn, sh, seq(r))
	sh.buf = sh.buf[1:]
	sh.window, sh.failSeq, sh.failures, sh.exhausted = p.batchSize(), "", 0, false
	sh.lastRequestID, sh.lastFnErr = "", false
}

func (p *StreamPoller) failureRecord(arn string, sh *shard, r types.Record) FailureRecord {
	// Stream creation times have no fractions (DynamoDB Local even rounds
	// them down to the minute); Lambda writes them so.
	arrival := ""
	if r.Dynamodb != nil && r.Dynamodb.ApproximateCreationDateTime != nil {
		arrival = r.Dynamodb.ApproximateCreationDateTime.UTC().Format(time.RFC3339)
	}
	f := FailureRecord{
		RequestContext: FailureRequestContext{
			RequestID: orDefault(sh.lastRequestID, newRequestID()), FunctionARN: p.functionARN(),
			Condition: ConditionRetriesExhausted, ApproximateInvokeCount: sh.failures,
		},
		ResponseContext: FailureResponseContext{StatusCode: 200, ExecutedVersion: "$LATEST"},
		Version:         "1.0",
		Timestamp:       time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		DDBStreamBatchInfo: DDBStreamBatchInfo{
			ShardID: sh.id, StartSequenceNumber: seq(r), EndSequenceNumber: seq(r),
			ApproximateArrivalOfFirstRecord: arrival, ApproximateArrivalOfLastRecord: arrival,
			BatchSize: 1, StreamArn: arn,
		},
	}
	if sh.lastFnErr {
		f.ResponseContext.FunctionError = "Unhandled"
	}
	return f
}
