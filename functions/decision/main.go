// Command decision is the task handler of the decision state machine: it
// validates and applies operator actions on reviews.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
)

func main() {
	ctx := context.Background()
	boot.Logger()
	cfg := boot.Must(boot.AWSConfig(ctx))
	st := boot.Must(boot.StoreWith(cfg, "decision"))
	wathq := boot.Must(boot.Wathq(ctx, cfg))
	yente := boot.Must(boot.Yente(ctx, cfg, true))
	svc := &decisions.Service{Store: st, Checker: &checks.Runner{
		Registries: map[string]checks.Registry{checks.ProviderWathq: wathq},
		Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: yente},
	}}
	lambda.Start(svc.Handle)
}
