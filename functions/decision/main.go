// Command decision is the task handler of the decision state machine: it
// validates and applies operator actions on reviews.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
)

func main() {
	ctx := context.Background()
	boot.Logger()
	cfg := boot.Must(boot.AWSConfig(ctx))
	st := boot.Must(boot.StoreWith(cfg, "decision"))
	svc := &decisions.Service{Store: st, Checker: boot.Must(boot.Intake(ctx, cfg))}
	lambda.Start(svc.Handle)
}
