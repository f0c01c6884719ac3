// Command review-events reads the reviews table's stream and queues one
// delivery per review event and subscribed, active endpoint.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/reviewevents"
)

func main() {
	boot.Logger()
	cfg := boot.Must(boot.AWSConfig(context.Background()))
	st := boot.Must(boot.StoreWith(cfg, "review-events"))
	queue := boot.Must(boot.DeliveriesQueue(cfg))
	e := &reviewevents.Emitter{Endpoints: st, Reviews: st, Queue: queue}
	lambda.Start(e.Handle)
}
