// Command admin administers a stage: accounts, countries, API keys,
// operators, webhook endpoints, deliveries and the audit trail, one command
// document per invocation. It has no API route: it is reached through the
// Lambda Invoke API, so IAM decides who may administer and CloudTrail
// records every call.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/webhooks"
)

func main() {
	ctx := context.Background()
	boot.Logger()
	cfg := boot.Must(boot.AWSConfig(ctx))
	h := &admin.Handler{
		Store: boot.Must(boot.StoreWith(cfg, "admin")),
		Queue: boot.Must(boot.DeliveriesQueue(cfg)),
		Allow: boot.Must(webhooks.ParseAllowList(os.Getenv("WEBHOOK_ALLOWED_NETWORKS"))),
	}
	lambda.Start(h.Handle)
}
