package boot

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/iamguard"
	"github.com/evs-kyb/evs/shared/metrics"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// Start is a function's main: its Deps from the Lambda environment, its
// handler from the table, then the runtime's loop. Any failure stops the
// init (Must).
func Start(name string) {
	d := Must(FromEnv(context.Background(), name))
	lambda.Start(Must(Handler(name, d)))
}

// FromEnv builds the Deps of the function deployed as name from its Lambda
// environment, reading only what the function uses: the tables named in
// its environment (none for a storeless one), its providers' settings (YENTE_*, WATHQ_*) and secrets
// (Secrets Manager), the evidence bucket (EVIDENCE_BUCKET), the records
// bucket (RECORDS_BUCKET), the deliveries
// queue's URL, WEBHOOK_ALLOWED_NETWORKS, SETTINGS_BASE_URL, PASSKEY_RP_ID
// and PASSKEY_ORIGINS.
// It makes the function's JSON logger slog's default first, so an init
// failure is logged as JSON.
func FromEnv(ctx context.Context, name string) (Deps, error) {
	log := Logger()
	fn, f, err := lookup(name)
	if err != nil {
		return Deps{}, err
	}
	cfg, err := AWSConfig(ctx)
	if err != nil {
		return Deps{}, fmt.Errorf("%s: %w", name, err)
	}
	// The secrets it reads at init, put to its role as the rest of its
	// calls are (confine): those its catalogue entry names, no other.
	var arns []string
	for _, s := range f.Secrets {
		arns = append(arns, os.Getenv(s.EnvVar))
	}
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), iamguard.New(f, nil, cfg.Region).WithSecrets(arns...).APIOption)
	d := Deps{Log: log, Clock: domain.SystemClock}
	if err := addStorage(&d, cfg, name, fn.needs); err != nil {
		return Deps{}, err
	}
	if err := addProviders(ctx, &d, cfg, name, fn.needs); err != nil {
		return Deps{}, err
	}
	if err := addDeliveries(&d, cfg, name, fn.needs); err != nil {
		return Deps{}, err
	}
	if fn.needs.has(needSettings) {
		// Unset is allowed (portal.link alone fails); set wrong, nothing
		// would sign in: fail the init.
		if v := os.Getenv("SETTINGS_BASE_URL"); v != "" {
			if err := portal.CheckBaseURL(v); err != nil {
				return Deps{}, fmt.Errorf("%s: SETTINGS_BASE_URL: %w", name, err)
			}
			d.SettingsURL = v
		}
	}
	if fn.needs.has(needPasskeys) {
		if d.Passkeys, err = PasskeysFromEnv(os.Getenv); err != nil {
			return Deps{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if fn.needs.has(needWorkflow) {
		if d.Workflow, err = DecisionWorkflow(ctx, cfg); err != nil {
			return Deps{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if fn.needs.has(needMetrics) {
		// Embedded metric format: CloudWatch reads the lines from stdout.
		d.Metrics = metrics.New(os.Stdout, d.Clock)
	}
	return d, nil
}

// addStorage gives d the store (unless the function is storeless), the
// evidence bucket and the records bucket, as the function needs them.
func addStorage(d *Deps, cfg aws.Config, name string, needs need) error {
	var err error
	if !needs.has(storeless) {
		if d.Store, err = StoreFor(cfg, name); err != nil {
			return err
		}
	}
	if needs.has(needBlobs) {
		if d.Blobs, err = EvidenceBucket(cfg); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if needs.has(needRecords) {
		if d.Records, err = RecordsBucket(cfg); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// addProviders gives d the intake checks' providers (keeping evidence in
// d.Blobs) and the inbound webhook's screening reader and secrets, as the
// function needs them.
func addProviders(ctx context.Context, d *Deps, cfg aws.Config, name string, needs need) error {
	if needs.has(needIntake) {
		runner, err := Intake(ctx, cfg, d.Clock)
		if err != nil {
			return fmt.Errorf("%s: intake providers: %w", name, err)
		}
		runner.Blobs = d.Blobs
		d.Intake = runner
	}
	if needs.has(needInbound) {
		// The reader needs no key: it only reads what the webhook brings.
		yente, err := Yente(ctx, cfg, false)
		if err != nil {
			return fmt.Errorf("%s: screening reader: %w", name, err)
		}
		d.Readers = map[string]screening.Reader{checks.ProviderOpenSanctions: yente}
		d.WebhookSecrets = InboundWebhookSecrets(ctx, cfg, d.Log)
	}
	return nil
}

// addDeliveries gives d the deliveries queue and the networks webhook
// endpoints may use, as the function needs them.
func addDeliveries(d *Deps, cfg aws.Config, name string, needs need) error {
	if needs.has(needQueue) {
		q, err := DeliveriesQueue(cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d.Deliveries = q
	}
	if needs.has(needAllow) {
		var err error
		if d.Allow, err = webhooks.ParseAllowList(os.Getenv("WEBHOOK_ALLOWED_NETWORKS")); err != nil {
			return fmt.Errorf("%s: WEBHOOK_ALLOWED_NETWORKS: %w", name, err)
		}
	}
	return nil
}

// PasskeysFromEnv reads the relying party of the operators' passkeys:
// PASSKEY_RP_ID (the console's domain) and PASSKEY_ORIGINS (its origins,
// comma-separated). Both unset: none (declared decisions only); one
// without the other, or an RP id the origins do not match, fails the init.
func PasskeysFromEnv(getenv func(string) string) (passkey.Config, error) {
	id, origins := strings.TrimSpace(getenv("PASSKEY_RP_ID")), strings.TrimSpace(getenv("PASSKEY_ORIGINS"))
	if id == "" && origins == "" {
		return passkey.Config{}, nil
	}
	cfg := passkey.Config{RPID: id, RPDisplayName: "EVS"}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.Origins = append(cfg.Origins, o)
		}
	}
	if err := cfg.Validate(); err != nil {
		return passkey.Config{}, fmt.Errorf("PASSKEY_RP_ID/PASSKEY_ORIGINS: %w", err)
	}
	return cfg, nil
}
