// Command list-entities serves GET /api/v1/entities.
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
	log := boot.Logger()
	st := boot.Must(boot.Store(context.Background(), "list-entities"))
	lambda.Start(httplambda.New(api.NewListEntities(st, country.ISO()), log))
}
