// Command periodic-reviews runs on an EventBridge schedule and opens the
// periodic reviews that are due.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
)

func main() {
	boot.Logger()
	st := boot.Must(boot.Store(context.Background(), "periodic-reviews"))
	s := &decisions.Scheduler{Store: st}
	lambda.Start(s.HandleSchedule)
}
