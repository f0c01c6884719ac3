package pipeline

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/reviewevents"
	"github.com/evs-kyb/evs/shared/store"
)

// testQueue makes a queue of the test's own with a one-second visibility
// timeout, so failed messages come back quickly, and, with maxReceiveCount >
// 0, a dead-letter queue. It returns the queue's URL and ARN and the DLQ's URL.
func testQueue(t *testing.T, client *sqs.Client, maxReceiveCount int) (url, arn, dlqURL string) {
	t.Helper()
	ctx := context.Background()
	prefix := devstack.UniquePrefix(t.Name())
	attrs := map[string]string{"VisibilityTimeout": "1"}
	if maxReceiveCount > 0 {
		dlqURL, dlqARN, err := ensureQueue(ctx, client, prefix+"dlq", map[string]string{"VisibilityTimeout": "30"})
		if err != nil {
			t.Fatal(err)
		}
		deleteQueueAtEnd(t, client, dlqURL)
		attrs["RedrivePolicy"] = redrivePolicy(dlqARN, maxReceiveCount)
		url, arn, err = ensureQueue(ctx, client, prefix+"main", attrs)
		if err != nil {
			t.Fatal(err)
		}
		deleteQueueAtEnd(t, client, url)
		return url, arn, dlqURL
	}
	url, arn, err := ensureQueue(ctx, client, prefix+"main", attrs)
	if err != nil {
		t.Fatal(err)
	}
	deleteQueueAtEnd(t, client, url)
	return url, arn, ""
}

func send(t *testing.T, client *sqs.Client, url string, bodies ...string) {
	t.Helper()
	in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(url)}
	for i, b := range bodies {
		in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(b)})
	}
	if _, err := client.SendMessageBatch(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

// queueEmpty reports whether the queue holds nothing, visible or in flight.
func queueEmpty(t *testing.T, client *sqs.Client, url string) bool {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["ApproximateNumberOfMessages"] == "0" && out.Attributes["ApproximateNumberOfMessagesNotVisible"] == "0"
}

func countBodies(msgs []events.SQSMessage) map[string]int {
	n := map[string]int{}
	for _, m := range msgs {
		n[m.Body]++
	}
	return n
}

// Handled messages are deleted; a message the handler reports comes back
// after the visibility timeout and, after maxReceiveCount receives, lands in
// the dead-letter queue.
func TestQueuePollerDeletesHandledAndRedrivesFailed(t *testing.T) {
	t.Parallel()
	client := stack(t)
	const maxReceives = 2
	url, arn, dlqURL := testQueue(t, client, maxReceives)
	send(t, client, url, "ok-1", "ok-2", "bad")

	var seen recorder[events.SQSMessage]
	p := &QueuePoller{
		SQS: client, URL: url, BatchSize: 10, WaitSeconds: 1, Concurrency: 2,
		Handler: func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			seen.add(ev.Records...)
			var resp events.SQSEventResponse
			for _, m := range ev.Records {
				if m.Body == "bad" {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				}
			}
			return resp, nil
		},
		Log: testLog(),
	}
	run(t, p.Run)

	start := time.Now()
	var dead []types.Message
	waitFor(t, 30*time.Second, "the failed message in the dead-letter queue", func() bool {
		dead = append(dead, receiveAll(t, client, dlqURL)...)
		return len(dead) > 0
	})
	t.Logf("dead-lettered %v after sending", time.Since(start))
	if len(dead) != 1 || aws.ToString(dead[0].Body) != "bad" {
		t.Fatalf("dead-letter queue holds %d messages, first %q; want only \"bad\"", len(dead), aws.ToString(dead[0].Body))
	}
	// By now the handled messages would have come back had they not been
	// deleted (the visibility timeout is one second).
	n := countBodies(seen.all())
	if n["ok-1"] != 1 || n["ok-2"] != 1 || n["bad"] != maxReceives {
		t.Errorf("handler saw %v; want each ok message once and the bad one %d times", n, maxReceives)
	}
	// Empty, as ElasticMQ counts it: its counts may lag a moment behind a
	// move to the dead-letter queue on a busy machine.
	waitFor(t, 5*time.Second, "the queue empty (the handled messages deleted, the failed one moved)", func() bool {
		return queueEmpty(t, client, url)
	})

	// The records are what Lambda builds.
	for _, m := range seen.all() {
		sum := md5.Sum([]byte(m.Body))
		if m.EventSource != "aws:sqs" || m.EventSourceARN != arn || m.AWSRegion != devstack.Region ||
			m.MessageId == "" || m.ReceiptHandle == "" || m.Md5OfBody != hex.EncodeToString(sum[:]) {
			t.Errorf("record %+v (queue ARN %s)", m, arn)
		}
		if m.Attributes["ApproximateReceiveCount"] == "" || m.Attributes["SentTimestamp"] == "" || m.Attributes["ApproximateFirstReceiveTimestamp"] == "" {
			t.Errorf("record attributes %v", m.Attributes)
		}
	}
	var counts []string
	for _, m := range seen.all() {
		if m.Body == "bad" {
			counts = append(counts, m.Attributes["ApproximateReceiveCount"])
		}
	}
	if len(counts) != 2 || counts[0] != "1" || counts[1] != "2" {
		t.Errorf("the bad message's receive counts %v, want [1 2]", counts)
	}
}

// A handler error fails the whole batch: every message of it comes back.
func TestQueuePollerHandlerErrorLeavesBatch(t *testing.T) {
	t.Parallel()
	client := stack(t)
	url, _, _ := testQueue(t, client, 0)
	send(t, client, url, "a", "b")

	var seen recorder[events.SQSMessage]
	p := &QueuePoller{
		SQS: client, URL: url, WaitSeconds: 1,
		// Fails every batch holding a message received for the first time.
		Handler: func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			seen.add(ev.Records...)
			for _, m := range ev.Records {
				if m.Attributes["ApproximateReceiveCount"] == "1" {
					return events.SQSEventResponse{}, errors.New("down")
				}
			}
			return events.SQSEventResponse{}, nil
		},
		Log: testLog(),
	}
	run(t, p.Run)
	waitFor(t, 20*time.Second, "both messages twice", func() bool {
		n := countBodies(seen.all())
		return n["a"] == 2 && n["b"] == 2
	})
	waitFor(t, 10*time.Second, "an empty queue", func() bool { return queueEmpty(t, client, url) })
	time.Sleep(1500 * time.Millisecond) // past the visibility timeout: nothing comes back
	if n := countBodies(seen.all()); n["a"] != 2 || n["b"] != 2 || len(n) != 2 {
		t.Errorf("handler saw %v, want each message twice", n)
	}
}

// endpoints is a fixed list of webhook endpoints for review-events.
type endpoints []domain.Endpoint

func (e endpoints) Endpoints(ctx context.Context, accountID int64, c domain.Consistency) ([]domain.Endpoint, error) {
	return e, nil
}

// The whole local pipeline with the real review-events handler: a review
// approved in the table becomes a stream record, then a delivery message on
// the deliveries queue, then an SQSEvent for webhook-delivery's place.
func TestPipelineApprovedReviewReachesDeliveryHandler(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	client := stack(t)
	_, urls := ensureTestQueues(t, client)

	emitter := &reviewevents.Emitter{
		Endpoints: endpoints{{AccountID: 1, ID: 40, Active: true, Events: []domain.EventType{domain.EventApproved}}},
		Reviews:   new(store.Store), // decoding images reads no table
		Queue:     &delivery.SQSQueue{Client: client, URL: urls[deploy.QueueDeliveries]},
	}
	fn, _ := deploy.Lookup("review-events")
	sp := &StreamPoller{
		Streams: streams, DB: ddb, Table: table, Source: fn.Streams[0], Handler: emitter.Handle,
		OnFailure:   FailureQueue(client, urls[fn.Streams[0].OnFailure]),
		FunctionARN: FunctionARN(fn.Name), Interval: 50 * time.Millisecond, Log: testLog(),
	}
	var got recorder[events.SQSMessage]
	qp := &QueuePoller{
		SQS: client, URL: urls[deploy.QueueDeliveries], BatchSize: 10, WaitSeconds: 1, Log: testLog(),
		Handler: func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			got.add(ev.Records...)
			return events.SQSEventResponse{}, nil
		},
	}
	run(t, sp.Run)
	run(t, qp.Run)

	now := domain.FormatTime(time.Now())
	review := map[string]string{"entity_id": "9", "purpose": "initial", "status": "open", "created_at": now, "updated_at": now}
	item := func(extra map[string]string) map[string]dtypes.AttributeValue {
		out := map[string]dtypes.AttributeValue{}
		for k, v := range review {
			out[k] = str(v)
		}
		for k, v := range extra {
			out[k] = str(v)
		}
		out["entity_id"], out["version"] = num("9"), num("1")
		return out
	}
	putReview(t, ddb, table, 7, item(nil))
	approved := item(map[string]string{"status": "completed", "outcome": "approved"})
	approved["version"] = num("2")
	putReview(t, ddb, table, 7, approved)

	waitFor(t, 20*time.Second, "the delivery message", func() bool { return len(got.all()) >= 1 })
	time.Sleep(300 * time.Millisecond)
	if len(got.all()) != 1 {
		t.Fatalf("%d delivery messages, want 1 (the insert fires no event)", len(got.all()))
	}
	var m delivery.Message
	if err := json.Unmarshal([]byte(got.all()[0].Body), &m); err != nil {
		t.Fatal(err)
	}
	if m.Event.EventType != domain.EventApproved || m.AccountID != 1 || m.EndpointID != 40 || m.Event.EntityReviewID != 7 || m.DeliveryID == "" {
		t.Errorf("delivery message %+v", m)
	}
}
