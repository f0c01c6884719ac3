package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
)

// CheckpointTableSuffix names the local runner's checkpoint table: the
// stream's table prefix + this ("evs-local-stream-checkpoints").
//
// The table is the local poller's own, as the KCL keeps a lease table of its
// own: it is not in shared/schema, which describes the deployed tables. On
// AWS the event source mapping keeps its position itself, and nothing of the
// service reads or writes one.
const CheckpointTableSuffix = "stream-checkpoints"

// CheckpointTableName is the checkpoint table of the tables named prefix+id.
func CheckpointTableName(prefix string) string { return prefix + CheckpointTableSuffix }

// Checkpoints stores a StreamPoller's position per shard in a DynamoDB table
// (key: stream_arn, shard_id): the sequence number of the last record whose
// batch was accepted, and whether the shard was read to its end. A stream
// ARN names one stream of one table, so a table created again (a new stream)
// starts with no checkpoint, from TRIM_HORIZON.
type Checkpoints struct {
	DB    *dynamodb.Client
	Table string
}

// Checkpoint is one shard's stored position.
type Checkpoint struct {
	// SequenceNumber is the last record done: the poller resumes after it.
	// Empty for a shard finished with no record.
	SequenceNumber string
	// Finished: the shard is closed and every record of it is done, so its
	// children may be read.
	Finished bool
}

// EnsureCheckpoints creates the checkpoint table of the tables named
// prefix+id if it is missing, and returns it. Creating it again is harmless.
func EnsureCheckpoints(ctx context.Context, db *dynamodb.Client, prefix string) (*Checkpoints, error) {
	c := &Checkpoints{DB: db, Table: CheckpointTableName(prefix)}
	if err := c.Ensure(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Ensure creates the table if it is missing. StreamPoller.Run calls it each
// time it starts, as DynamoDB Local kept in memory loses the table with the
// others when it restarts (and the stream with it: the new stream then
// starts from TRIM_HORIZON, which is the right place).
func (c *Checkpoints) Ensure(ctx context.Context) error {
	if err := devstack.EnsureTable(ctx, c.DB, checkpointTable(), c.Table); err != nil {
		return fmt.Errorf("pipeline: checkpoint table: %w", err)
	}
	return nil
}

// checkpointTable describes the checkpoint table as shared/schema describes
// the deployed ones, so it is created the same way.
func checkpointTable() schema.Table {
	return schema.Table{
		ID:           CheckpointTableSuffix,
		PartitionKey: schema.Attr{Name: "stream_arn", Type: schema.String},
		SortKey:      &schema.Attr{Name: "shard_id", Type: schema.String},
	}
}

// Drop deletes the checkpoint table: every stream starts again from
// TRIM_HORIZON (tests use it; `up` never does).
func (c *Checkpoints) Drop(ctx context.Context) error {
	_, err := c.DB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(c.Table)})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return nil
	}
	return err
}

// Load is every stored shard position of the stream, by shard id. It reads
// strongly consistently: the poller that wrote them may have just stopped.
func (c *Checkpoints) Load(ctx context.Context, streamARN string) (map[string]Checkpoint, error) {
	out := map[string]Checkpoint{}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(c.Table),
		KeyConditionExpression:    aws.String("stream_arn = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: streamARN}},
		ConsistentRead:            aws.Bool(true),
	}
	for {
		page, err := c.DB.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("pipeline: read checkpoints: %w", err)
		}
		for _, item := range page.Items {
			var cp Checkpoint
			if v, ok := item["sequence_number"].(*types.AttributeValueMemberS); ok {
				cp.SequenceNumber = v.Value
			}
			if v, ok := item["finished"].(*types.AttributeValueMemberBOOL); ok {
				cp.Finished = v.Value
			}
			if id, ok := item["shard_id"].(*types.AttributeValueMemberS); ok {
				out[id.Value] = cp
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// Save stores a shard's position. The write is unconditional: one poller
// owns a stream's shards (`up` runs one), so there is no lease to contend
// for, and a position only ever moves forward within that poller.
func (c *Checkpoints) Save(ctx context.Context, streamARN, shardID string, cp Checkpoint) error {
	item := map[string]types.AttributeValue{
		"stream_arn": &types.AttributeValueMemberS{Value: streamARN},
		"shard_id":   &types.AttributeValueMemberS{Value: shardID},
		"finished":   &types.AttributeValueMemberBOOL{Value: cp.Finished},
		"updated_at": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339Nano)},
	}
	if cp.SequenceNumber != "" {
		item["sequence_number"] = &types.AttributeValueMemberS{Value: cp.SequenceNumber}
	}
	_, err := c.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.Table), Item: item})
	if err != nil {
		return fmt.Errorf("pipeline: save checkpoint of shard %s: %w", shardID, err)
	}
	return nil
}
