package main

import (
	"encoding/base64"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// Credentials the local simulator expects, and the local webhook secret
// (EVS_WEBHOOK_SECRET overrides it). None of them protects anything real.
const (
	localWathqKey = "local-wathq-key"
	localYenteKey = "local-yente-key"
)

func localWebhookSecret() string {
	if s := os.Getenv("EVS_WEBHOOK_SECRET"); s != "" {
		return s
	}
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte("evs-local-webhook-secret-0001"))
}

// providers are the external services the functions call.
type providers struct {
	intake         api.IntakeRunner
	screening      api.ScreeningReader
	webhookSecrets map[string][]webhooks.Secret
}

// simulatorProviders points the provider clients at the local simulator,
// as a deployment points them at Wathq and yente.
func simulatorProviders(baseURL string) providers {
	client := &http.Client{Timeout: 60 * time.Second}
	yente := &checks.Yente{BaseURL: baseURL, APIKey: localYenteKey, Client: client}
	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	return providers{
		intake: &checks.Runner{
			Registries: map[string]checks.Registry{checks.ProviderWathq: &checks.Wathq{BaseURL: baseURL, APIKey: localWathqKey, Client: client}},
			Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: yente},
		},
		screening:      yente,
		webhookSecrets: map[string][]webhooks.Secret{checks.ProviderOpenSanctions: secrets},
	}
}

// newGateway wires every function's Lambda handler, built exactly as its
// functions/<name>/main.go builds it, behind the local API Gateway.
func newGateway(st *store.Store, log *slog.Logger, p providers) *gateway.Gateway {
	countries := country.ISO()
	if p.intake == nil {
		p.intake = &checks.Runner{} // every check fails: no provider is configured
	}
	if p.screening == nil {
		p.screening = &checks.Yente{}
	}
	fn := func(h httplambda.Handler) gateway.ProxyFunc { return gateway.ProxyFunc(h) }
	return &gateway.Gateway{
		Authorizer: (&auth.Authorizer{Keys: st}).Handle,
		Functions: map[string]gateway.ProxyFunc{
			"list-entities": fn(httplambda.New(api.NewListEntities(st, countries), log)),
			"create-entity": fn(httplambda.New(api.NewCreateEntity(api.CreateEntity{Store: st, Intake: p.intake, Countries: countries}), log)),
			"get-entity":    fn(httplambda.New(api.NewGetEntity(st, countries), log)),
			"get-review":    fn(httplambda.New(api.NewGetReview(st, countries), log)),
			"provider-webhook": fn(httplambda.New(api.NewProviderWebhook(api.ProviderWebhook{
				Secrets: p.webhookSecrets,
				Readers: map[string]api.ScreeningReader{checks.ProviderOpenSanctions: p.screening},
				Store:   st,
			}), log)),
		},
		Log:                log,
		AuthorizerCacheTTL: deploy.AuthorizerCacheTTL,
	}
}
