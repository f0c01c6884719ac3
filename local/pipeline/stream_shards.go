package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

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

func seq(r types.Record) string {
	if r.Dynamodb == nil {
		return ""
	}
	return aws.ToString(r.Dynamodb.SequenceNumber)
}
