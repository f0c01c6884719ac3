package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// sampleInvoker runs one function's Lambda handler on a raw event.
type sampleInvoker func(ctx context.Context, raw []byte) (any, error)

// valueInvoker runs a handler of an API Gateway event, as lambda.Start
// would, and answers its response as it is (the cases read its fields).
func valueInvoker[In, Out any](h func(context.Context, In) (Out, error)) sampleInvoker {
	return func(ctx context.Context, raw []byte) (any, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("unmarshal event: %w", err)
		}
		return h(ctx, in)
	}
}

// invokerOf runs a handler of boot's table by its kind: the API functions
// and the authorizer answer their responses, the others their output as
// JSON, as Lambda hands it on.
func invokerOf(h any) (sampleInvoker, error) {
	switch h := h.(type) {
	case boot.HTTPHandler:
		return valueInvoker(h), nil
	case boot.AuthorizerHandler:
		return valueInvoker(h), nil
	case boot.DecisionHandler:
		return taskInvoker(h), nil
	case boot.ScheduleHandler:
		return taskInvoker(h), nil
	case boot.StreamHandler:
		return taskInvoker(h), nil
	case boot.QueueHandler:
		return taskInvoker(h), nil
	case boot.AdminHandler:
		return taskInvoker(h), nil
	case boot.RecordsHandler:
		return taskInvoker(h), nil
	}
	return nil, fmt.Errorf("no invoker for a handler of type %T", h)
}

// sampleHandlers builds every function's Lambda handler by boot's table, as
// its functions/<name>/main.go does, over storeFor(its name), with the providers played by the
// simulator at simURL, the deliveries queue and the allow list of rieEnv
// (loopback), and the webhook checked at the clock now.
func sampleHandlers(storeFor func(function string) *store.Store, deps *sampleDeps, now func() time.Time) (map[string]sampleInvoker, error) {
	simURL := deps.simURL
	client := &http.Client{Timeout: 30 * time.Second}
	runner := &checks.Runner{
		Registries: map[string]checks.Registry{checks.ProviderWathq: &checks.Wathq{BaseURL: simURL, APIKey: localWathqKey, Client: client, Clock: domain.SystemClock}},
		Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: &checks.Yente{BaseURL: simURL, APIKey: localYenteKey, Client: client}},
		Clock:      domain.SystemClock,
	}
	secrets, err := webhooks.ParseSecrets(sampleWebhookSecret)
	if err != nil {
		return nil, err
	}
	loopback, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		return nil, err
	}
	d := boot.Deps{
		Log: quietLogger(), Clock: domain.SystemClock, Intake: runner,
		Readers:        map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{Client: client}},
		WebhookSecrets: map[string][]webhooks.Secret{checks.ProviderOpenSanctions: secrets},
		Deliveries:     &delivery.SQSQueue{Client: deps.sqs, URL: deps.queues[deploy.QueueDeliveries]},
		Allow:          loopback,
		SettingsURL:    sampleSettingsURL,
		Records:        deps.records,
	}
	out := map[string]sampleInvoker{}
	for _, f := range deploy.Functions() {
		fd := d
		fd.Store = storeFor(f.Name)
		if f.Name == "provider-webhook" {
			// Only the webhook's signature depends on the sample's time;
			// the other functions keep their own clocks.
			fd.Clock = now
		}
		h, err := boot.Handler(f.Name, fd)
		if err != nil {
			return nil, err
		}
		if out[f.Name], err = invokerOf(h); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return out, nil
}

// taskInvoker runs a handler of a JSON event, as lambda.Start would, and
// answers its output as JSON.
func taskInvoker[In, Out any](h func(context.Context, In) (Out, error)) sampleInvoker {
	return func(ctx context.Context, raw []byte) (any, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("unmarshal event: %w", err)
		}
		out, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}
}
