package boot

import (
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
)

// SQS returns a client; SQS_ENDPOINT points it elsewhere (ElasticMQ, under
// the local runner).
func SQS(cfg aws.Config) *sqs.Client {
	endpoint := os.Getenv("SQS_ENDPOINT")
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
}

// DeliveriesQueue is the deliveries queue, its URL from the environment.
func DeliveriesQueue(cfg aws.Config) (*delivery.SQSQueue, error) {
	q, ok := deploy.LookupQueue(deploy.QueueDeliveries)
	if !ok {
		return nil, fmt.Errorf("boot: no queue %q in shared/deploy", deploy.QueueDeliveries)
	}
	url := os.Getenv(q.EnvVar)
	if url == "" {
		return nil, fmt.Errorf("boot: %s is not set", q.EnvVar)
	}
	return &delivery.SQSQueue{Client: SQS(cfg), URL: url}, nil
}
