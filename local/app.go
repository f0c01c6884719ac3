package main

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/screening"
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
	screening      screening.Reader
	webhookSecrets map[string][]webhooks.Secret
	// blobs keeps the answers over 350 KB (the evidence bucket's
	// stand-in); nil keeps none (stored false, with why).
	blobs boot.Blobs
}

// localRecords is the records bucket's local stand-in: a directory
// written once per key (devstack.RecordsDir).
func localRecords() records.Dir { return records.Dir{Root: devstack.RecordsDir()} }

// localBlobs is the evidence bucket's local stand-in: a directory under
// the local stack's data (devstack.EvidenceDir).
func localBlobs() blob.Dir { return blob.Dir{Root: devstack.EvidenceDir()} }

// simulatorProviders points the provider clients at the local simulator,
// as a deployment points them at Wathq and yente.
func simulatorProviders(baseURL string) providers {
	client := &http.Client{Timeout: 60 * time.Second}
	yente := &checks.Yente{BaseURL: baseURL, APIKey: localYenteKey, Client: client}
	// An EVS_WEBHOOK_SECRET that does not parse leaves none: every webhook
	// is refused, as in AWS; up refuses to start with it.
	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	return providers{
		intake: &checks.Runner{
			Registries: map[string]checks.Registry{checks.ProviderWathq: &checks.Wathq{BaseURL: baseURL, APIKey: localWathqKey, Client: client, Clock: domain.SystemClock}},
			Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: yente},
			Clock:      domain.SystemClock,
		},
		screening:      yente,
		webhookSecrets: map[string][]webhooks.Secret{checks.ProviderOpenSanctions: secrets},
		blobs:          localBlobs(),
	}
}

// deps are the functions' Deps over the local store, with the providers
// given; a provider missing (tests) is one that fails: every check fails,
// every webhook is refused.
func (p providers) deps(st *store.Store, log *slog.Logger) boot.Deps {
	if p.intake == nil {
		p.intake = &checks.Runner{Clock: domain.SystemClock} // every check fails: no provider is configured
	}
	if p.screening == nil {
		p.screening = &checks.Yente{}
	}
	if r, ok := p.intake.(*checks.Runner); ok && p.blobs != nil {
		// As boot.FromEnv gives the runner the evidence bucket.
		withBlobs := *r
		withBlobs.Blobs = p.blobs
		p.intake = &withBlobs
	}
	// The settings area sends redeliveries and test events to the local
	// deliveries queue (found when first used) and checks endpoint URLs by
	// the local allow list; an unparseable WEBHOOK_ALLOWED_NETWORKS allows
	// nothing here (up refuses to start with one).
	allow, _ := localAllowList()
	return boot.Deps{
		Store: st, Log: log, Clock: domain.SystemClock, Intake: p.intake, WebhookSecrets: p.webhookSecrets,
		Readers:    map[string]screening.Reader{checks.ProviderOpenSanctions: p.screening},
		Deliveries: &lazyQueue{},
		Allow:      allow,
		Blobs:      p.blobs,
		Passkeys:   localPasskeys(),
	}
}

// buildGateway puts the API's functions (deploy.Routes) and the authorizer,
// each built by boot's table as its functions/<name>/main.go builds it,
// behind the local API Gateway. A function of entries is built under that
// entry instead of its catalogue's (a test takes a grant away).
func buildGateway(d boot.Deps, entries ...deploy.Function) (*gateway.Gateway, error) {
	entry := func(name string) (deploy.Function, error) {
		for _, f := range entries {
			if f.Name == name {
				return f, nil
			}
		}
		return catalogued(name)
	}
	f, err := entry("authorizer")
	if err != nil {
		return nil, err
	}
	authorizer, err := boot.AsOf[boot.AuthorizerHandler](f, d)
	if err != nil {
		return nil, err
	}
	fns := map[string]gateway.ProxyFunc{}
	for _, r := range deploy.Routes() {
		f, err := entry(r.Function)
		if err != nil {
			return nil, err
		}
		h, err := boot.AsOf[boot.HTTPHandler](f, d)
		if err != nil {
			return nil, err
		}
		fns[r.Function] = gateway.ProxyFunc(h)
	}
	return &gateway.Gateway{
		Authorizer:         gateway.AuthorizerFunc(authorizer),
		Functions:          fns,
		Log:                d.Log,
		AuthorizerCacheTTL: deploy.AuthorizerCacheTTL,
	}, nil
}

// newGateway is buildGateway over st with the providers p, for the tests.
// Its only failures are a Deps or table gone wrong, which boot's tests and
// every gateway test catch: it panics rather than make each caller check.
func newGateway(st *store.Store, log *slog.Logger, p providers) *gateway.Gateway {
	gw, err := buildGateway(p.deps(st, log))
	if err != nil {
		panic(fmt.Sprintf("local gateway: %v", err))
	}
	return gw
}

// screeningEngine is the screening engine the simulator hands /match to:
// the stack's yente (devstack.YenteURL). An address that does not parse
// leaves none: every screening then fails as with the engine down.
func screeningEngine() http.Handler {
	h, err := sim.EngineProxy(devstack.YenteURL())
	if err != nil {
		return nil
	}
	return h
}
