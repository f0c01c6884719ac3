// Command create-entity serves POST /api/v1/entities: it validates the
// request, runs the country's intake checks against the providers and writes
// the entity in one transaction.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/httplambda"
)

func main() {
	ctx := context.Background()
	log := boot.Logger()
	cfg := boot.Must(boot.AWSConfig(ctx))
	st := boot.Must(boot.StoreWith(cfg, "create-entity"))
	runner := boot.Must(boot.Intake(ctx, cfg))
	lambda.Start(httplambda.New(api.NewCreateEntity(api.CreateEntity{Store: st, Intake: runner, Countries: country.ISO()}), log))
}
