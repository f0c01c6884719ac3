package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/devstack"
)

// Stopping a queue poller drains it: the batches in the handler finish with
// a live context and are deleted; no new batch is taken; nothing is left
// invisible (held until its visibility timeout, 5 minutes here).
func TestQueuePollerDrainsOnStop(t *testing.T) {
	t.Parallel()
	client := stack(t)
	url, _, err := ensureQueue(context.Background(), client, devstack.UniquePrefix(t.Name())+"main", map[string]string{"VisibilityTimeout": "300"})
	if err != nil {
		t.Fatal(err)
	}
	deleteQueueAtEnd(t, client, url)
	var bodies []string
	for i := range 10 {
		bodies = append(bodies, fmt.Sprintf("m%d", i))
	}
	send(t, client, url, bodies...)

	var handled recorder[string]
	var cut atomic.Int32 // handler contexts that ended before the handler did
	started := make(chan struct{}, 10)
	p := &QueuePoller{
		SQS: client, URL: url, BatchSize: 3, WaitSeconds: 1, Concurrency: 2, Timeout: 30 * time.Second, Log: testLog(),
		Handler: func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			started <- struct{}{}
			select { // a slow receiver, within its timeout
			case <-time.After(time.Second):
			case <-ctx.Done():
				cut.Add(1)
			}
			for _, r := range ev.Records {
				handled.add(r.Body)
			}
			return events.SQSEventResponse{}, nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	<-started
	cancel()
	stopped := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	if n := cut.Load(); n != 0 {
		t.Errorf("%d invocations saw their context end: stopping must not cut them short", n)
	}
	if since := time.Since(stopped); since < 500*time.Millisecond {
		t.Errorf("Run returned %v after the stop, before its batch had finished", since)
	}
	got := handled.all()
	if len(got) == 0 || len(got) > 6 {
		t.Fatalf("handled %d messages, want the batches under way (1 to 2 of 3)", len(got))
	}

	// What was handled is deleted, the rest visible at once: a new reader
	// gets exactly the others now.
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	visible, _ := strconv.Atoi(out.Attributes["ApproximateNumberOfMessages"])
	held, _ := strconv.Atoi(out.Attributes["ApproximateNumberOfMessagesNotVisible"])
	if visible != 10-len(got) || held != 0 {
		t.Errorf("queue: %d visible, %d in flight; want %d visible (10 less %d handled), none held", visible, held, 10-len(got), len(got))
	}
	rest := map[string]bool{}
	for _, m := range receiveAll(t, client, url) {
		rest[aws.ToString(m.Body)] = true
	}
	for _, b := range got {
		if rest[b] {
			t.Errorf("%s was handled and is still on the queue", b)
		}
		rest[b] = true
	}
	if len(rest) != 10 {
		t.Errorf("%d distinct messages handled or left, want 10", len(rest))
	}
}
