// Command webhook-delivery consumes the deliveries queue: it claims each
// delivery once, signs and posts it, and records the attempt.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/metrics"
	"github.com/evs-kyb/evs/shared/webhooks"
)

func main() {
	boot.Logger()
	st := boot.Must(boot.Store(context.Background(), "webhook-delivery"))
	allow := boot.Must(webhooks.ParseAllowList(os.Getenv("WEBHOOK_ALLOWED_NETWORKS")))
	fn, _ := deploy.Lookup("webhook-delivery")
	d := &delivery.Deliverer{
		Store:   st,
		Client:  webhooks.NewClient(webhooks.ClientOptions{Timeout: webhooks.DefaultTimeout, Allow: allow}),
		Lease:   delivery.LeaseFor(fn.TimeoutSeconds),
		Metrics: metrics.New(os.Stdout),
	}
	lambda.Start(d.Handle)
}
