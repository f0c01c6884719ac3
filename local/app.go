package main

import (
	"log/slog"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/store"
)

// newGateway wires every function's Lambda handler, built exactly as its
// functions/<name>/main.go builds it, behind the local API Gateway.
func newGateway(st *store.Store, log *slog.Logger) *gateway.Gateway {
	countries := country.ISO()
	fn := func(h httplambda.Handler) gateway.ProxyFunc { return gateway.ProxyFunc(h) }
	return &gateway.Gateway{
		Authorizer: (&auth.Authorizer{Keys: st}).Handle,
		Functions: map[string]gateway.ProxyFunc{
			"list-entities": fn(httplambda.New(api.NewListEntities(st, countries), log)),
			"get-entity":    fn(httplambda.New(api.NewGetEntity(st, countries), log)),
			"get-review":    fn(httplambda.New(api.NewGetReview(st, countries), log)),
		},
		Log:                log,
		AuthorizerCacheTTL: api.AuthorizerCacheTTL,
	}
}
