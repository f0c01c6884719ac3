// Command provider-webhook serves POST /webhooks/{provider}: screening
// results signed the Standard Webhooks way, applied once per webhook-id.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/webhooks"
)

func main() {
	ctx := context.Background()
	log := boot.Logger()
	cfg := boot.Must(boot.AWSConfig(ctx))
	st := boot.Must(boot.StoreWith(cfg, "provider-webhook"))
	yente := boot.Must(boot.Yente(ctx, cfg, false))
	secrets := map[string][]webhooks.Secret{}
	// A missing or unreadable secret leaves the provider with none: its
	// webhooks are then refused (fail closed), never trusted.
	if raw, err := boot.Secret(ctx, cfg, "OPENSANCTIONS_WEBHOOK_SECRET_SECRET_ARN"); err != nil {
		log.Error("no webhook secret for opensanctions: its webhooks will be refused", "error", err.Error())
	} else if s, err := webhooks.ParseSecrets(raw); err != nil {
		log.Error("unreadable webhook secret for opensanctions: its webhooks will be refused", "error", err.Error())
	} else {
		secrets[checks.ProviderOpenSanctions] = s
	}
	lambda.Start(httplambda.New(api.NewProviderWebhook(api.ProviderWebhook{
		Secrets: secrets,
		Readers: map[string]api.ScreeningReader{checks.ProviderOpenSanctions: yente},
		Store:   st,
	}), log))
}
