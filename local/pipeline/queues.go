// Package pipeline runs, on one machine, the event sources that feed the
// service's asynchronous functions on AWS: the reviews table's stream
// (DynamoDB Local) into review-events, and the deliveries queue (ElasticMQ)
// into webhook-delivery. Each poller builds the event Lambda would build and
// applies Lambda's batching, retry and partial-failure rules, then calls the
// very handler the function's main.go hands to lambda.Start.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
)

// SQSClient is an SQS client for ElasticMQ at endpoint (devstack.SQSEndpoint()
// normally), with the local stack's dummy credentials.
func SQSClient(endpoint string) *sqs.Client {
	return sqs.NewFromConfig(devstack.AWSConfig(), func(o *sqs.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
}

// QueueName is the local name of queue id: prefix+id.
func QueueName(prefix, id string) string { return prefix + id }

// EnsureQueues creates every queue of deploy.Queues() named prefix+ID, with
// its visibility timeout, retention and redrive policy, and returns queue id →
// URL. It is idempotent: a queue that exists is brought to the catalogue's
// attributes. For make local's prefix the queues exist before this runs
// (local/stack/stack.sh declares them in ElasticMQ's config, so they are
// there from the moment it starts, after a restart too); tests with
// prefixes of their own rely on this alone. Dead-letter queues are made first, as a redrive policy names
// its target by ARN. ElasticMQ 1.7 accepts MessageRetentionPeriod but never
// reports it back (GetQueueAttributes leaves it out even when asked for it),
// so the retention cannot be checked locally.
func EnsureQueues(ctx context.Context, client *sqs.Client, prefix string) (map[string]string, error) {
	urls, arns := map[string]string{}, map[string]string{}
	pending := deploy.Queues()
	// Each pass creates the queues whose dead-letter queue exists already;
	// a pass that creates nothing means a dead letter names no queue.
	for len(pending) > 0 {
		var later []deploy.Queue
		for _, q := range pending {
			if q.DeadLetter != "" && arns[q.DeadLetter] == "" {
				later = append(later, q)
				continue
			}
			url, arn, err := ensureQueue(ctx, client, QueueName(prefix, q.ID), queueAttributes(q, arns[q.DeadLetter]))
			if err != nil {
				return nil, err
			}
			urls[q.ID], arns[q.ID] = url, arn
		}
		if len(later) == len(pending) {
			return nil, fmt.Errorf("pipeline: queue %s: dead-letter queue %q is not a queue of the catalogue", later[0].ID, later[0].DeadLetter)
		}
		pending = later
	}
	return urls, nil
}

// queueAttributes are the SQS attributes of q; dlqARN is its dead-letter
// queue's ARN when it has one.
func queueAttributes(q deploy.Queue, dlqARN string) map[string]string {
	attrs := map[string]string{
		string(types.QueueAttributeNameVisibilityTimeout):      strconv.Itoa(q.VisibilityTimeoutSeconds),
		string(types.QueueAttributeNameMessageRetentionPeriod): strconv.Itoa(q.RetentionDays * 86400),
	}
	if q.DeadLetter != "" {
		attrs[string(types.QueueAttributeNameRedrivePolicy)] = redrivePolicy(dlqARN, q.MaxReceiveCount)
	}
	return attrs
}

func redrivePolicy(dlqARN string, maxReceiveCount int) string {
	b, _ := json.Marshal(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{dlqARN, maxReceiveCount})
	return string(b)
}

// ensureQueue creates the queue and sets its attributes, returning its URL
// and ARN. The attributes are set even when CreateQueue succeeds: for a
// queue that exists, SQS answers CreateQueue with its URL when the
// attributes match, and ElasticMQ compares them with those the queue was
// created with, not those it has now, so a queue changed since would keep
// its changes. A mismatch is QueueNameExists, and the URL is looked up.
func ensureQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (url, arn string, err error) {
	if !validQueueName(name) {
		return "", "", fmt.Errorf("pipeline: %q is not a valid queue name (1 to 80 letters, digits, - or _)", name)
	}
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	var exists *types.QueueNameExists
	switch {
	case errors.As(err, &exists):
		got, gerr := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if gerr != nil {
			return "", "", fmt.Errorf("pipeline: queue %s: %w", name, gerr)
		}
		url = aws.ToString(got.QueueUrl)
	case err != nil:
		return "", "", fmt.Errorf("pipeline: create queue %s: %w", name, err)
	default:
		url = aws.ToString(out.QueueUrl)
	}
	if _, err := client.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: attrs}); err != nil {
		return "", "", fmt.Errorf("pipeline: set attributes of queue %s: %w", name, err)
	}
	arn, err = queueARN(ctx, client, url)
	return url, arn, err
}

func queueARN(ctx context.Context, client *sqs.Client, url string) (string, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return "", fmt.Errorf("pipeline: ARN of queue %s: %w", url, err)
	}
	return out.Attributes[string(types.QueueAttributeNameQueueArn)], nil
}

// validQueueName: what SQS allows for a standard queue, and ElasticMQ too.
func validQueueName(name string) bool {
	if name == "" || len(name) > 80 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
