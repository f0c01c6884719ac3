package tabledump

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// API is the part of the DynamoDB client a dump and a load use.
type API interface {
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// Dump writes every item of the table to w, one line each, read
// consistently; it returns how many.
func Dump(ctx context.Context, api API, table string, w io.Writer) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // as written: an escaped <, > or & would grow a line past what Load reads
	n := 0
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := api.Scan(ctx, in)
		if err != nil {
			return n, fmt.Errorf("scan %s: %w", table, err)
		}
		for _, item := range out.Items {
			m, err := encodeMap(item)
			if err != nil {
				return n, fmt.Errorf("%s: %w", table, err)
			}
			if err := enc.Encode(map[string]any{"Item": m}); err != nil {
				return n, err
			}
			n++
		}
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// batch is BatchWriteItem's limit of items per request.
const batch = 25

// Load puts every item of r (Dump's lines) into the table, 25 a request,
// writing again what DynamoDB leaves unprocessed; it returns how many. An
// item already there is replaced by the dump's.
func Load(ctx context.Context, api API, table string, r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20) // an item is at most 400 KB, more as JSON
	var pending []types.WriteRequest
	n, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Item == nil {
			return n, fmt.Errorf("%s: line %d is no {\"Item\": …}: %v", table, lineNo, err)
		}
		item, err := decodeMap(l.Item)
		if err != nil {
			return n, fmt.Errorf("%s: line %d: %w", table, lineNo, err)
		}
		pending = append(pending, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		if len(pending) == batch {
			if err := write(ctx, api, table, pending); err != nil {
				return n, err
			}
			n += len(pending)
			pending = pending[:0]
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("%s: %w", table, err)
	}
	if len(pending) > 0 {
		if err := write(ctx, api, table, pending); err != nil {
			return n, err
		}
		n += len(pending)
	}
	return n, nil
}

// write puts one batch, again and again while some are left unprocessed.
func write(ctx context.Context, api API, table string, reqs []types.WriteRequest) error {
	for tries := 0; len(reqs) > 0; tries++ {
		if tries == 10 {
			return fmt.Errorf("batch write %s: %d item(s) still unprocessed", table, len(reqs))
		}
		out, err := api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			return fmt.Errorf("batch write %s: %w", table, err)
		}
		reqs = out.UnprocessedItems[table]
	}
	return nil
}
