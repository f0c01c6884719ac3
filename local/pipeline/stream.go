package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/shared/deploy"
)

// StreamPoller stands in for a Lambda event source mapping on a table's
// stream, with ReportBatchItemFailures, bounded retries, bisection on
// function errors and an on-failure destination, as deploy.StreamSource
// describes it.
//
// Per shard it delivers records in order, at most Source.BatchSize at a time.
// When the handler fails at a record X (the lowest sequence number it
// reports, or the batch's first record when it returns an error), the records
// before X are done and the batch is retried from X. A function error on a
// batch of several records halves the batch instead (bisection, which costs
// no retry), so the retries converge on the failing record. Once X has
// failed Source.MaxRetries+1 times, its on-failure record goes to OnFailure
// and the shard carries on after it: one bad record never blocks the rest.
// A MaxRetries of -1 retries forever, as Lambda's -1 does. MaxRecordAge is
// not applied: local records are never a day old.
//
// Unlike Lambda, it reads the shards one after the other (a child once its
// parent is finished).
//
// Checkpoints: the position in each shard (the last sequence number whose
// batch was accepted: the handler returned without failures, or the record
// it kept failing on went to OnFailure) is stored in Checkpoints after each
// batch, as the KCL stores it in its lease table, so a poller started again
// resumes AFTER_SEQUENCE_NUMBER where the last one stopped; a shard with no
// checkpoint starts at TRIM_HORIZON (or LATEST, see StartAtLatest). Nothing
// accepted is handled twice, nothing written while no poller ran is lost.
// Without Checkpoints the positions live in memory only.
//
// Stopping (the contract `up` relies on: cancel ctx, then wait for Run to
// return): no new batch is started; the batch in the handler finishes, with
// the function's Timeout as its only limit, as a Lambda invocation is not
// cut short by its poller; its outcome moves the checkpoint, which is
// stored; then Run returns.
type StreamPoller struct {
	Streams *dynamodbstreams.Client
	// DB finds the table's latest stream.
	DB *dynamodb.Client
	// Table is the physical table name.
	Table   string
	Source  deploy.StreamSource
	Handler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
	// OnFailure receives the on-failure record of a record given up on (see
	// FailureQueue). Nil discards it, as Lambda does without a destination.
	OnFailure func(context.Context, FailureRecord) error
	// Interval between polls when no shard has new records; default 250ms,
	// Lambda's four polls a second.
	Interval time.Duration
	// RetryBackoff is the pause before retrying a failed batch; default 1s.
	RetryBackoff time.Duration
	// StartAtLatest starts the shards open when Run starts at LATEST rather
	// than TRIM_HORIZON (the mapping's StartingPosition). Shards that appear
	// later are always read from their start.
	StartAtLatest bool
	// FunctionARN labels invocations and failure records; default
	// FunctionARN("local").
	FunctionARN string
	// Checkpoints keeps the shards' positions across runs; nil keeps them
	// in memory only.
	Checkpoints *Checkpoints
	// Timeout is the function's timeout: each invocation's context ends
	// then, as Lambda's does, whether or not the poller is stopping. Zero:
	// no deadline.
	Timeout time.Duration
	Log     *slog.Logger
}

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

// shard is the poller's position in one shard.
type shard struct {
	id, parent string
	start      types.ShardIteratorType // for the first iterator
	iter       *string
	lastRead   string         // sequence number of the last record read, to re-open an expired iterator
	acked      string         // sequence number of the last record done: the checkpoint
	dirty      bool           // acked or done not yet stored
	buf        []types.Record // read, not yet done; buf[0] is the checkpoint
	closed     bool           // the shard has no more records
	done       bool           // closed and every record done
	window     int            // batch size now: smaller while bisecting

	// The record at the checkpoint that keeps failing.
	failSeq       string
	failures      int
	exhausted     bool // retries spent; its failure record is still to be delivered
	lastRequestID string
	lastFnErr     bool
}

// Run polls the stream until ctx ends, then returns nil. It fails at once
// only when the table or its stream cannot be found.
func (p *StreamPoller) Run(ctx context.Context) error {
	if p.Handler == nil || p.Streams == nil || p.DB == nil {
		return errors.New("pipeline: StreamPoller needs Streams, DB and Handler")
	}
	arn, err := p.streamARN(ctx)
	if err != nil {
		return err
	}
	log := p.log().With("stream_arn", arn)
	var saved map[string]Checkpoint
	if p.Checkpoints != nil {
		// Without its checkpoints the poller would start from TRIM_HORIZON
		// and replay the stream: refuse to start instead.
		if err := p.Checkpoints.Ensure(ctx); err != nil {
			return err
		}
		if saved, err = p.Checkpoints.Load(ctx, arn); err != nil {
			return err
		}
	}
	log.Info("stream poller started", "batch_size", p.batchSize(), "max_retries", p.Source.MaxRetries, "start_at_latest", p.StartAtLatest, "checkpoints", len(saved))
	shards := map[string]*shard{}
	var order []string // discovery order; a child is read only after its parent
	defer func() { p.flush(log, arn, shards) }()
	discovered := false
	for ctx.Err() == nil {
		// DynamoDB closes shards and opens children over time: look for new
		// ones on every pass (cheap against DynamoDB Local).
		added, err := p.discover(ctx, arn, shards, saved, !discovered)
		order = append(order, added...) // even after an error: those are known now
		if err == nil {
			discovered = true
		} else if ctx.Err() == nil {
			log.Warn("describe stream failed", "error", err.Error())
		}
		busy := false
		for _, id := range order {
			sh := shards[id]
			if sh.dirty {
				p.save(log, arn, sh) // a store that failed before: try again
			}
			if ctx.Err() != nil {
				break // stopping: no new batch
			}
			if sh.done || !parentDone(sh, shards) {
				continue
			}
			if p.step(ctx, log.With("shard_id", sh.id), arn, sh) {
				busy = true
			}
		}
		if !busy && !Sleep(ctx, orDefault(p.Interval, 250*time.Millisecond)) {
			break
		}
	}
	log.Info("stream poller stopped")
	return nil
}

func (p *StreamPoller) log() *slog.Logger {
	return orDefault(p.Log, slog.Default()).With("table", p.Table)
}

func (p *StreamPoller) batchSize() int { return max(p.Source.BatchSize, 1) }

func (p *StreamPoller) streamARN(ctx context.Context) (string, error) {
	out, err := p.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(p.Table)})
	if err != nil {
		return "", fmt.Errorf("pipeline: describe table %s: %w", p.Table, err)
	}
	if out.Table.LatestStreamArn == nil {
		return "", fmt.Errorf("pipeline: table %s has no stream", p.Table)
	}
	return *out.Table.LatestStreamArn, nil
}

// discover adds the stream's shards not seen yet and returns their ids. A
// shard with a checkpoint resumes after it (or is done, when it was read to
// its end). Otherwise, the first time, shards start at TRIM_HORIZON, or
// LATEST with StartAtLatest (and closed ones are then skipped); any shard
// found later is new, so is read from its start.
func (p *StreamPoller) discover(ctx context.Context, arn string, shards map[string]*shard, saved map[string]Checkpoint, first bool) ([]string, error) {
	var added []string
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	for {
		out, err := p.Streams.DescribeStream(ctx, in)
		if err != nil {
			return added, err
		}
		for _, s := range out.StreamDescription.Shards {
			id := aws.ToString(s.ShardId)
			if shards[id] != nil {
				continue
			}
			sh := &shard{id: id, parent: aws.ToString(s.ParentShardId), start: types.ShardIteratorTypeTrimHorizon, window: p.batchSize()}
			if cp, ok := saved[id]; ok {
				// read opens AFTER_SEQUENCE_NUMBER lastRead when it is set.
				sh.lastRead, sh.acked = cp.SequenceNumber, cp.SequenceNumber
				sh.closed, sh.done = cp.Finished, cp.Finished
			} else if first && p.StartAtLatest {
				sh.start = types.ShardIteratorTypeLatest
				sh.done = s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil
			}
			shards[id] = sh
			added = append(added, id)
		}
		if out.StreamDescription.LastEvaluatedShardId == nil {
			return added, nil
		}
		in.ExclusiveStartShardId = out.StreamDescription.LastEvaluatedShardId
	}
}

// parentDone: a child shard waits until its parent is read to the end, so
// an item's changes stay in order. A parent no longer listed was trimmed.
func parentDone(sh *shard, shards map[string]*shard) bool {
	parent := shards[sh.parent]
	return sh.parent == "" || parent == nil || parent.done
}

// step reads and handles what one shard has; it reports whether it did any
// work, so the poller only sleeps when every shard is idle.
func (p *StreamPoller) step(ctx context.Context, log *slog.Logger, arn string, sh *shard) bool {
	if len(sh.buf) < p.batchSize() && !sh.closed {
		p.read(ctx, log, arn, sh)
	}
	if len(sh.buf) == 0 {
		if sh.closed {
			sh.done, sh.dirty = true, true
			p.save(log, arn, sh)
			log.Info("stream shard finished")
		}
		return false
	}
	if ctx.Err() != nil {
		return false // stopping: what was read and not handled is read again next time
	}
	p.process(ctx, log, arn, sh)
	return true
}

// ack moves the shard's checkpoint to the record with sequence number s,
// the last one done, and stores it.
func (p *StreamPoller) ack(log *slog.Logger, arn string, sh *shard, s string) {
	sh.acked, sh.dirty = s, true
	p.save(log, arn, sh)
}

// save stores the shard's checkpoint if it changed. It runs even while the
// poller stops (the batch it records is done). A failure is logged and
// tried again on the next pass: until then a restart would hand the same
// records to the handler again, which is safe (deliveries are claimed once),
// where skipping them would not be.
func (p *StreamPoller) save(log *slog.Logger, arn string, sh *shard) {
	if p.Checkpoints == nil || !sh.dirty {
		sh.dirty = false
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Checkpoints.Save(ctx, arn, sh.id, Checkpoint{SequenceNumber: sh.acked, Finished: sh.done}); err != nil {
		log.Warn("checkpoint not stored; will retry", "sequence_number", sh.acked, "error", err.Error())
		return
	}
	sh.dirty = false
}

// flush stores the checkpoints still unstored when Run returns.
func (p *StreamPoller) flush(log *slog.Logger, arn string, shards map[string]*shard) {
	for _, sh := range shards {
		if sh.dirty {
			p.save(log.With("shard_id", sh.id), arn, sh)
		}
	}
}

// read appends the shard's next records to its buffer, up to a batch.
func (p *StreamPoller) read(ctx context.Context, log *slog.Logger, arn string, sh *shard) {
	if sh.iter == nil {
		in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(sh.id), ShardIteratorType: sh.start}
		if sh.lastRead != "" {
			in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(sh.lastRead)
		}
		out, err := p.Streams.GetShardIterator(ctx, in)
		var trimmed *types.TrimmedDataAccessException
		if errors.As(err, &trimmed) && sh.lastRead != "" && len(sh.buf) == 0 && sh.lastRead == sh.acked {
			// The checkpoint is older than the stream keeps (24 hours):
			// what came after it until the trim horizon has expired, as it
			// would for the event source mapping. Read what is left.
			log.Warn("checkpoint beyond the stream's retention: reading from the trim horizon", "sequence_number", sh.lastRead)
			sh.lastRead, sh.start = "", types.ShardIteratorTypeTrimHorizon
			return
		}
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("get shard iterator failed", "error", err.Error())
			}
			return
		}
		if sh.iter = out.ShardIterator; sh.iter == nil {
			sh.closed = true
			return
		}
	}
	out, err := p.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{
		ShardIterator: sh.iter,
		Limit:         aws.Int32(int32(min(p.batchSize()-len(sh.buf), 1000))),
	}, fixEmptyMaps)
	var expired *types.ExpiredIteratorException
	var trimmed *types.TrimmedDataAccessException
	switch {
	case errors.As(err, &expired):
		sh.iter = nil // iterators live 15 minutes; open a new one after lastRead
		return
	case errors.As(err, &trimmed):
		// DynamoDB Local answers this for a TRIM_HORIZON iterator taken on a
		// shard that was still empty; a new iterator reads what came since.
		log.Debug("stream iterator trimmed: opening a new one", "shard_id", sh.id)
		sh.iter = nil
		return
	case err != nil:
		if ctx.Err() == nil {
			log.Warn("get stream records failed", "error", err.Error())
		}
		return
	}
	if n := len(out.Records); n > 0 {
		sh.buf = append(sh.buf, out.Records...)
		sh.lastRead = seq(out.Records[n-1])
	}
	if sh.iter = out.NextShardIterator; sh.iter == nil {
		sh.closed = true
	}
}

// process invokes the handler once on the batch at the shard's checkpoint
// and moves the checkpoint as Lambda would.
func (p *StreamPoller) process(ctx context.Context, log *slog.Logger, arn string, sh *shard) {
	if sh.exhausted { // its failure record could not be delivered yet
		p.giveUp(ctx, log, arn, sh)
		return
	}
	batch := sh.buf[:min(sh.window, len(sh.buf))]
	ev := events.DynamoDBEvent{Records: make([]events.DynamoDBEventRecord, 0, len(batch))}
	for i, r := range batch {
		rec, err := StreamRecord(arn, r)
		if err != nil {
			// No retry can make a record Lambda could not present: send the
			// records before it, and give up on it once it is first.
			log.Error("stream record cannot be converted", "sequence_number", seq(r), "error", err.Error())
			if i == 0 {
				sh.failSeq, sh.failures, sh.exhausted = seq(r), 0, true
				p.giveUp(ctx, log, arn, sh)
				return
			}
			batch = batch[:i]
			break
		}
		ev.Records = append(ev.Records, rec)
	}
	// The invocation does not end when the poller is told to stop: it runs
	// to its end (or the function's timeout), and its outcome counts.
	ictx, cancel := p.invocationContext(ctx)
	resp, requestID, err := invoke(ictx, p.log(), p.functionARN(), p.Handler, ev)
	cancel()
	failAt, fnErr := 0, err != nil
	if err == nil {
		if len(resp.BatchItemFailures) == 0 {
			p.ack(log, arn, sh, seq(batch[len(batch)-1]))
			sh.buf = sh.buf[len(batch):]
			sh.window, sh.failSeq, sh.failures = p.batchSize(), "", 0
			log.Debug("stream batch handled", "records", len(batch), "aws_request_id", requestID)
			return
		}
		if failAt = lowestFailure(ev.Records, resp.BatchItemFailures); failAt < 0 {
			// Lambda takes an identifier naming no record of the batch as a
			// failure of the whole batch.
			log.Warn("batch item failure names no record of the batch", "aws_request_id", requestID)
			failAt, fnErr = 0, true
		}
	}
	if failAt > 0 { // the records before the failure are done
		p.ack(log, arn, sh, seq(batch[failAt-1]))
	}
	sh.buf = sh.buf[failAt:]
	x := seq(sh.buf[0])
	if fnErr && len(batch) > 1 {
		sh.window = len(batch) / 2
		log.Warn("stream batch failed; bisecting", "records", len(batch), "next_batch", sh.window, "aws_request_id", requestID, "error", errText(err))
		Sleep(ctx, p.backoff())
		return
	}
	if x != sh.failSeq {
		sh.failSeq, sh.failures = x, 0
	}
	sh.failures++
	sh.lastRequestID, sh.lastFnErr = requestID, fnErr
	if p.Source.MaxRetries >= 0 && sh.failures > p.Source.MaxRetries {
		sh.exhausted = true
		p.giveUp(ctx, log, arn, sh)
		return
	}
	log.Warn("stream record failed; retrying", "sequence_number", x, "attempt", sh.failures, "max_retries", p.Source.MaxRetries, "aws_request_id", requestID, "error", errText(err))
	Sleep(ctx, p.backoff())
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

// invocationContext is an invocation's context: ctx's values, not its
// cancellation (stopping the poller lets the invocation finish), and the
// function's timeout as its deadline.
func (p *StreamPoller) invocationContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return functionContext(ctx, p.Timeout)
}

func (p *StreamPoller) backoff() time.Duration { return orDefault(p.RetryBackoff, time.Second) }

func (p *StreamPoller) functionARN() string { return orDefault(p.FunctionARN, FunctionARN("local")) }

// lowestFailure is the index of the earliest record the response names, or
// -1 when an identifier names no record of the batch.
func lowestFailure(recs []events.DynamoDBEventRecord, failures []events.DynamoDBBatchItemFailure) int {
	index := make(map[string]int, len(recs))
	for i, r := range recs {
		index[r.Change.SequenceNumber] = i
	}
	lowest := len(recs)
	for _, f := range failures {
		i, ok := index[f.ItemIdentifier]
		if !ok {
			return -1
		}
		lowest = min(lowest, i)
	}
	return lowest
}

func seq(r types.Record) string {
	if r.Dynamodb == nil {
		return ""
	}
	return aws.ToString(r.Dynamodb.SequenceNumber)
}

func errText(err error) string {
	if err == nil {
		return "batch item failure"
	}
	return err.Error()
}
