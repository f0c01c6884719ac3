package delivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// batches counts the entries of each SendMessageBatch made through the
// real client (ElasticMQ).
type batches struct {
	*sqs.Client
	mu    sync.Mutex
	sizes []int
}

func (b *batches) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(in.Entries))
	b.mu.Unlock()
	return b.Client.SendMessageBatch(ctx, in, opts...)
}

func TestSQSQueue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	devstacktest.Stack(t)
	client := sqs.NewFromConfig(devstack.AWSConfig(), func(o *sqs.Options) { o.BaseEndpoint = aws.String(devstack.SQSEndpoint()) })
	name := strings.ReplaceAll(devstack.UniquePrefix(t.Name())+"deliveries", ".", "-")
	created, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: created.QueueUrl}) })

	tests := []struct {
		n     int
		sizes []int
	}{{0, nil}, {1, []int{1}}, {10, []int{10}}, {23, []int{10, 10, 3}}}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			api := &batches{Client: client}
			q := &delivery.SQSQueue{Client: api, URL: aws.ToString(created.QueueUrl)}
			var msgs []delivery.Message
			for i := range tc.n {
				ev := domain.Event{EventType: domain.EventAssigned, EntityReviewID: int64(i + 1), EntityID: 7, AccountID: 1, OccurredAt: "2026-11-01T09:00:00.000Z"}
				msgs = append(msgs, delivery.NewMessage(fmt.Sprintf("evt_%d", i), ev, 3))
			}
			if err := q.Send(ctx, msgs); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(api.sizes, tc.sizes) {
				t.Errorf("batches %v, want %v", api.sizes, tc.sizes)
			}
			var got []delivery.Message
			for len(got) < tc.n && ctx.Err() == nil {
				out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: created.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range out.Messages {
					var msg delivery.Message
					if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &msg); err != nil {
						t.Fatal(err)
					}
					got = append(got, msg)
					client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: created.QueueUrl, ReceiptHandle: m.ReceiptHandle})
				}
			}
			sort.Slice(got, func(i, j int) bool { return got[i].Event.EntityReviewID < got[j].Event.EntityReviewID })
			if !reflect.DeepEqual(got, msgs) {
				t.Errorf("received %d messages, want %d:\n got %+v\nwant %+v", len(got), len(msgs), got, msgs)
			}
		})
	}
	t.Run("a queue that does not exist", func(t *testing.T) {
		q := &delivery.SQSQueue{Client: client, URL: aws.ToString(created.QueueUrl) + "-missing"}
		err := q.Send(ctx, []delivery.Message{delivery.NewMessage("evt_x", domain.Event{EventType: domain.EventApproved, AccountID: 1}, 1)})
		if err == nil {
			t.Error("no error")
		}
	})
}
