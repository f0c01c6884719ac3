package pipeline

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/schema"
)

// testLog shows the pollers' logs with -v (warnings and errors only, so a
// passing run stays readable).
func testLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// stack starts the local stack if needed and returns an SQS client for it.
func stack(t *testing.T) *sqs.Client {
	t.Helper()
	devstacktest.Stack(t)
	return SQSClient(devstack.SQSEndpoint())
}

// reviewsTable creates the test's tables and returns the clients and the
// physical name of the reviews table (which has the stream).
func reviewsTable(t *testing.T) (*dynamodb.Client, *dynamodbstreams.Client, string) {
	t.Helper()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	ddb := db.Client().(*dynamodb.Client)
	streams := dynamodbstreams.NewFromConfig(devstack.AWSConfig(), func(o *dynamodbstreams.Options) {
		o.BaseEndpoint = aws.String(devstack.DynamoDBEndpoint())
	})
	return ddb, streams, names[schema.Reviews]
}

// ensureTestQueues makes the catalogue's queues under a prefix of the test's
// own and deletes them when it ends.
func ensureTestQueues(t *testing.T, client *sqs.Client) (prefix string, urls map[string]string) {
	t.Helper()
	prefix = devstack.UniquePrefix(t.Name())
	urls, err := EnsureQueues(context.Background(), client, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range urls {
		deleteQueueAtEnd(t, client, url)
	}
	return prefix, urls
}

func deleteQueueAtEnd(t *testing.T, client *sqs.Client, url string) {
	t.Cleanup(func() {
		client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	})
}

// run starts a poller's Run and, at the end of the test, stops it and checks
// it returned nil.
func run(t *testing.T, runFn func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runFn(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Run did not return after its context ended")
		}
	})
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// receiveAll drains what the queue has now (one long poll per round, until
// one comes back empty).
func receiveAll(t *testing.T, client *sqs.Client, url string) []types.Message {
	t.Helper()
	var out []types.Message
	for {
		r, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Messages) == 0 {
			return out
		}
		out = append(out, r.Messages...)
	}
}

// recorder collects what a handler was given, safely across goroutines.
type recorder[T any] struct {
	mu    sync.Mutex
	items []T
}

func (r *recorder[T]) add(v ...T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v...)
}

func (r *recorder[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.items...)
}

func num(v string) dtypes.AttributeValue { return &dtypes.AttributeValueMemberN{Value: v} }
func str(v string) dtypes.AttributeValue { return &dtypes.AttributeValueMemberS{Value: v} }
