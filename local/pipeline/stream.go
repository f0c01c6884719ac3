package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

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

// invocationContext is an invocation's context: ctx's values, not its
// cancellation (stopping the poller lets the invocation finish), and the
// function's timeout as its deadline.
func (p *StreamPoller) invocationContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return functionContext(ctx, p.Timeout)
}

func (p *StreamPoller) backoff() time.Duration { return orDefault(p.RetryBackoff, time.Second) }

func (p *StreamPoller) functionARN() string { return orDefault(p.FunctionARN, FunctionARN("local")) }
