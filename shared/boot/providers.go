package boot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// Secret reads a credential at init. The variable named envVar
// ("…_SECRET_ARN") holds a Secrets Manager secret's ARN, whose string value
// is read once; locally the value may be given directly in the variable
// without the suffix (WATHQ_API_KEY for WATHQ_API_KEY_SECRET_ARN). The value
// is never logged.
func Secret(ctx context.Context, cfg aws.Config, envVar string) (string, error) {
	if v := os.Getenv(strings.TrimSuffix(envVar, "_SECRET_ARN")); v != "" {
		return v, nil
	}
	arn := os.Getenv(envVar)
	if arn == "" {
		return "", fmt.Errorf("boot: %s is not set", envVar)
	}
	out, err := secretsmanager.NewFromConfig(cfg).GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	if err != nil {
		return "", fmt.Errorf("boot: read secret of %s: %w", envVar, err)
	}
	return aws.ToString(out.SecretString), nil
}

// providerClient is the HTTP client of provider calls: each check brings its
// own deadline; this one bounds what a check's timeout does not (idle
// connections, TLS handshakes).
func providerClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 5 * time.Second,
		},
		// A provider API never redirects; following one could send the
		// credential elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Yente is the screening client configured by YENTE_* variables (the key
// is optional: a self-hosted yente needs none).
func Yente(ctx context.Context, cfg aws.Config, withKey bool) (*checks.Yente, error) {
	y := &checks.Yente{
		BaseURL:   os.Getenv("YENTE_BASE_URL"),
		Dataset:   os.Getenv("YENTE_DATASET"),
		Algorithm: os.Getenv("YENTE_ALGORITHM"),
		Client:    providerClient(),
	}
	if a := y.Algorithm; a != "" && !validAlgorithm(a) {
		return nil, fmt.Errorf("boot: YENTE_ALGORITHM %q is not an algorithm name (letters, digits, '-', '.')", a)
	}
	if v := os.Getenv("YENTE_THRESHOLD"); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || t <= 0 || t > 1 {
			return nil, fmt.Errorf("boot: YENTE_THRESHOLD %q is not a score between 0 and 1", v)
		}
		y.Threshold = t
	}
	if withKey {
		if y.BaseURL == "" {
			return nil, errors.New("boot: YENTE_BASE_URL is not set")
		}
		key, err := Secret(ctx, cfg, "YENTE_API_KEY_SECRET_ARN")
		if err != nil {
			return nil, err
		}
		y.APIKey = strings.TrimSpace(key)
	}
	return y, nil
}

// validAlgorithm: a yente algorithm's name, as its /algorithms lists them
// (logic-v2, logic-v1, name-based…); yente itself refuses one it lacks.
func validAlgorithm(a string) bool {
	if len(a) > 40 {
		return false
	}
	for _, r := range a {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '.' && r != '_' {
			return false
		}
	}
	return true
}

// Wathq is the registry client configured by WATHQ_* variables.
func Wathq(ctx context.Context, cfg aws.Config, clock domain.Clock) (*checks.Wathq, error) {
	base := os.Getenv("WATHQ_BASE_URL")
	if base == "" {
		return nil, errors.New("boot: WATHQ_BASE_URL is not set")
	}
	key, err := Secret(ctx, cfg, "WATHQ_API_KEY_SECRET_ARN")
	if err != nil {
		return nil, err
	}
	api := os.Getenv("WATHQ_API")
	if api != "" && !slices.Contains(checks.WathqAPIs(), api) {
		return nil, fmt.Errorf("boot: WATHQ_API %q is none of %s", api, strings.Join(checks.WathqAPIs(), ", "))
	}
	return &checks.Wathq{BaseURL: base, APIKey: strings.TrimSpace(key), API: api, Client: providerClient(), Clock: clock}, nil
}

// Intake is the checks runner over the deployed providers (Wathq, yente
// with its key), as create-entity and the decision function's queue_checks
// use it.
func Intake(ctx context.Context, cfg aws.Config, clock domain.Clock) (*checks.Runner, error) {
	wathq, err := Wathq(ctx, cfg, clock)
	if err != nil {
		return nil, err
	}
	yente, err := Yente(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	return &checks.Runner{
		Registries: map[string]checks.Registry{checks.ProviderWathq: wathq},
		Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: yente},
		Clock:      clock,
	}, nil
}

// InboundWebhookSecrets are the secrets provider webhooks are signed with, by
// provider key. A missing or unreadable secret leaves the provider with none:
// its webhooks are then refused (fail closed), never trusted; so it is
// logged, not an init failure.
func InboundWebhookSecrets(ctx context.Context, cfg aws.Config, log *slog.Logger) map[string][]webhooks.Secret {
	secrets := map[string][]webhooks.Secret{}
	if raw, err := Secret(ctx, cfg, "OPENSANCTIONS_WEBHOOK_SECRET_SECRET_ARN"); err != nil {
		log.Error("no webhook secret for opensanctions: its webhooks will be refused", "error", err.Error())
	} else if s, err := webhooks.ParseSecrets(raw); err != nil {
		log.Error("unreadable webhook secret for opensanctions: its webhooks will be refused", "error", err.Error())
	} else {
		secrets[checks.ProviderOpenSanctions] = s
	}
	return secrets
}
