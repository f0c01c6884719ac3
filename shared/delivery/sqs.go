package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQSAPI is the part of the SQS client the queue uses.
type SQSAPI interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// SQSQueue sends delivery messages to the deliveries queue.
type SQSQueue struct {
	Client SQSAPI
	URL    string
}

// Send sends the messages in batches of ten (SQS's limit). Any message SQS
// refuses fails the whole call, so the caller retries it; messages sent
// twice are harmless, a delivery is claimed once.
func (q *SQSQueue) Send(ctx context.Context, msgs []Message) error {
	for start := 0; start < len(msgs); start += 10 {
		end := min(start+10, len(msgs))
		in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL)}
		for i, m := range msgs[start:end] {
			body, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("encode delivery %s: %w", m.DeliveryID, err)
			}
			in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{
				Id:          aws.String(strconv.Itoa(i)),
				MessageBody: aws.String(string(body)),
			})
		}
		out, err := q.Client.SendMessageBatch(ctx, in)
		if err != nil {
			return fmt.Errorf("send %d deliveries: %w", len(in.Entries), err)
		}
		if len(out.Failed) > 0 {
			f := out.Failed[0]
			return fmt.Errorf("send deliveries: %d refused, first: %s %s", len(out.Failed), aws.ToString(f.Code), aws.ToString(f.Message))
		}
	}
	return nil
}
