package pipeline

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/deploy"
)

func TestEnsureQueuesIsIdempotentAndSetsRedrive(t *testing.T) {
	t.Parallel()
	client := stack(t)
	ctx := context.Background()
	prefix, urls := ensureTestQueues(t, client)
	for _, q := range deploy.Queues() {
		if urls[q.ID] == "" {
			t.Fatalf("no URL for queue %s: %v", q.ID, urls)
		}
	}

	attrs := func(id string) map[string]string {
		t.Helper()
		out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(urls[id]),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	check := func() {
		t.Helper()
		for _, q := range deploy.Queues() {
			a := attrs(q.ID)
			if got, want := a["VisibilityTimeout"], strconv.Itoa(q.VisibilityTimeoutSeconds); got != want {
				t.Errorf("%s VisibilityTimeout = %s, want %s", q.ID, got, want)
			}
			if q.DeadLetter == "" {
				if a["RedrivePolicy"] != "" {
					t.Errorf("%s has a redrive policy: %s", q.ID, a["RedrivePolicy"])
				}
				continue
			}
			var rp struct {
				DeadLetterTargetArn string `json:"deadLetterTargetArn"`
				MaxReceiveCount     int    `json:"maxReceiveCount"`
			}
			if err := json.Unmarshal([]byte(a["RedrivePolicy"]), &rp); err != nil {
				t.Fatalf("%s RedrivePolicy %q: %v", q.ID, a["RedrivePolicy"], err)
			}
			if dlq := attrs(q.DeadLetter)["QueueArn"]; rp.DeadLetterTargetArn != dlq || rp.MaxReceiveCount != q.MaxReceiveCount {
				t.Errorf("%s RedrivePolicy = %+v, want target %s after %d receives", q.ID, rp, dlq, q.MaxReceiveCount)
			}
		}
	}
	check()

	// Someone changed a queue: ensuring again brings it back, same URLs.
	if _, err := client.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{
		QueueUrl: aws.String(urls[deploy.QueueDeliveries]), Attributes: map[string]string{"VisibilityTimeout": "7"},
	}); err != nil {
		t.Fatal(err)
	}
	again, err := EnsureQueues(ctx, client, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for id, url := range urls {
		if again[id] != url {
			t.Errorf("queue %s: URL %s, then %s", id, url, again[id])
		}
	}
	check()
}

func TestEnsureQueuesRefusesBadNames(t *testing.T) {
	t.Parallel()
	client := stack(t)
	if _, err := EnsureQueues(context.Background(), client, "bad prefix."); err == nil {
		t.Fatal("a prefix with a space and a dot was accepted")
	}
}
