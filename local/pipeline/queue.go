package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// QueuePoller stands in for a Lambda event source mapping on an SQS queue
// with ReportBatchItemFailures: it long-polls the queue, hands each batch to
// Handler as an SQSEvent, and deletes the messages the handler did not report
// as failed. Failed messages are left alone: they come back once their
// visibility timeout passes, and the queue's redrive policy moves them to
// its dead-letter queue after maxReceiveCount receives, as on AWS.
//
// Stopping (the contract `up` relies on: cancel ctx, then wait for Run to
// return) drains: no poller takes a new batch (a long poll under way is let
// finish, at most WaitSeconds, and what it brings is put back at once, made
// visible again, never held until its visibility timeout); the batches in
// the handler run to their end, with the function's Timeout as their only
// limit, as a Lambda invocation is not cut short by its poller; what they
// handled is deleted; then Run returns.
type QueuePoller struct {
	SQS *sqs.Client
	URL string
	// BatchSize is the most messages per invocation: 1 to 10 (one
	// ReceiveMessage); default 10.
	BatchSize int
	// WaitSeconds is the long-poll wait, 0 to 20; default 20, as Lambda's
	// pollers use.
	WaitSeconds int32
	Handler     func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	// Concurrency is the number of pollers side by side; default 1.
	Concurrency int
	// FunctionARN labels invocations; default FunctionARN("local").
	FunctionARN string
	// Timeout is the function's timeout: each invocation's context ends
	// then, as Lambda's does, stopping or not. Zero: no deadline.
	Timeout time.Duration
	Log     *slog.Logger
}

// Run polls until ctx ends, then returns nil once the batches under way are
// handled and acknowledged (see QueuePoller). It fails at once only when the
// queue cannot be found.
func (p *QueuePoller) Run(ctx context.Context) error {
	if p.SQS == nil || p.Handler == nil || p.URL == "" {
		return errors.New("pipeline: QueuePoller needs SQS, URL and Handler")
	}
	arn, err := queueARN(ctx, p.SQS, p.URL)
	if err != nil {
		return err
	}
	log := orDefault(p.Log, slog.Default()).With("queue_arn", arn)
	log.Info("queue poller started", "batch_size", p.batchSize(), "concurrency", max(p.Concurrency, 1))
	var wg sync.WaitGroup
	for range max(p.Concurrency, 1) {
		wg.Go(func() { p.poll(ctx, log, arn) })
	}
	wg.Wait()
	log.Info("queue poller stopped")
	return nil
}

func (p *QueuePoller) batchSize() int { return min(max(orDefault(p.BatchSize, 10), 1), 10) }

func (p *QueuePoller) poll(ctx context.Context, log *slog.Logger, arn string) {
	region := arnRegion(arn)
	wait := min(max(orDefault(p.WaitSeconds, 20), 0), 20)
	for ctx.Err() == nil {
		// The long poll is not cancelled with ctx: a receive cut short can
		// still have taken messages on the queue's side, which would then
		// stay invisible for their whole visibility timeout (6 minutes for
		// deliveries). It ends by itself within wait.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(wait)*time.Second+10*time.Second)
		out, err := p.SQS.ReceiveMessage(rctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(p.URL),
			MaxNumberOfMessages:         int32(p.batchSize()),
			WaitTimeSeconds:             wait,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		cancel()
		if err == nil && ctx.Err() != nil {
			// Stopping: this batch was not started; put it back for the
			// next poller rather than handle it.
			p.release(log, out.Messages)
			return
		}
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("receive messages failed", "error", err.Error())
				Sleep(ctx, time.Second)
			}
			continue
		}
		if len(out.Messages) > 0 {
			p.handle(ctx, log, arn, region, out.Messages)
		}
	}
}

// handle invokes the handler on one batch and deletes what it handled.
func (p *QueuePoller) handle(ctx context.Context, log *slog.Logger, arn, region string, msgs []types.Message) {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(msgs))}
	for _, m := range msgs {
		ev.Records = append(ev.Records, SQSMessage(arn, region, m))
	}
	// The invocation does not end when the poller is told to stop: it runs
	// to its end or the function's timeout, then is acknowledged.
	ictx, cancel := functionContext(ctx, p.Timeout)
	defer cancel()
	resp, requestID, err := invoke(ictx, orDefault(p.Log, slog.Default()), orDefault(p.FunctionARN, FunctionARN("local")), p.Handler, ev)
	log = log.With("aws_request_id", requestID)
	if err != nil {
		log.Warn("queue handler failed; the whole batch comes back after its visibility timeout", "messages", len(msgs), "error", err.Error())
		return
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	var del []types.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		id := aws.ToString(m.MessageId)
		if failed[id] {
			delete(failed, id)
			continue
		}
		del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if len(failed) > 0 {
		// Lambda takes an empty or unknown identifier as a failure of the
		// whole batch.
		log.Warn("batch item failure names no message of the batch; the whole batch comes back", "messages", len(msgs))
		return
	}
	if n := len(msgs) - len(del); n > 0 {
		log.Warn("queue messages failed; they come back after their visibility timeout", "failed", n, "messages", len(msgs))
	}
	if len(del) == 0 {
		return
	}
	// The handler has finished: acknowledge its work even if ctx just ended.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	out, err := p.SQS.DeleteMessageBatch(dctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(p.URL), Entries: del})
	switch {
	case err != nil:
		log.Error("delete handled messages failed; they will be handled again", "messages", len(del), "error", err.Error())
	case len(out.Failed) > 0:
		log.Error("delete handled messages: some refused; they will be handled again", "refused", len(out.Failed), "first", aws.ToString(out.Failed[0].Message))
	default:
		log.Debug("queue batch handled", "deleted", len(del))
	}
}

// release makes messages received but not handled visible again at once.
// Should it fail, they come back after their visibility timeout: late, not
// lost.
func (p *QueuePoller) release(log *slog.Logger, msgs []types.Message) {
	if len(msgs) == 0 {
		return
	}
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, 0, len(msgs))
	for i, m := range msgs {
		entries = append(entries, types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := p.SQS.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(p.URL), Entries: entries})
	switch {
	case err != nil:
		log.Warn("stopping: messages not put back; they come back after their visibility timeout", "messages", len(msgs), "error", err.Error())
	case len(out.Failed) > 0:
		log.Warn("stopping: some messages not put back; they come back after their visibility timeout", "refused", len(out.Failed))
	default:
		log.Debug("stopping: messages received put back", "messages", len(msgs))
	}
}

// functionContext is an invocation's context: ctx's values without its
// cancellation, since a poller told to stop lets the invocation under way
// finish, and the function's timeout as its deadline, as Lambda sets it.
func functionContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx = context.WithoutCancel(ctx)
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// SQSMessage is the record of an SQSEvent for message m, as Lambda builds it.
func SQSMessage(queueARN, region string, m types.Message) events.SQSMessage {
	out := events.SQSMessage{
		MessageId:              aws.ToString(m.MessageId),
		ReceiptHandle:          aws.ToString(m.ReceiptHandle),
		Body:                   aws.ToString(m.Body),
		Md5OfBody:              aws.ToString(m.MD5OfBody),
		Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
		Attributes:             map[string]string{},
		MessageAttributes:      map[string]events.SQSMessageAttribute{},
		EventSourceARN:         queueARN,
		EventSource:            "aws:sqs",
		AWSRegion:              region,
	}
	for k, v := range m.Attributes {
		out.Attributes[k] = v
	}
	for k, v := range m.MessageAttributes {
		out.MessageAttributes[k] = events.SQSMessageAttribute{
			DataType:         aws.ToString(v.DataType),
			StringValue:      v.StringValue,
			BinaryValue:      v.BinaryValue,
			StringListValues: orEmpty(v.StringListValues),
			BinaryListValues: orEmpty(v.BinaryListValues),
		}
	}
	return out
}

// arnRegion is the region field of an ARN (arn:partition:service:region:…).
func arnRegion(arn string) string {
	if parts := strings.SplitN(arn, ":", 5); len(parts) == 5 {
		return parts[3]
	}
	return ""
}

// orEmpty: Lambda's JSON has [] where a list is empty, never null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
