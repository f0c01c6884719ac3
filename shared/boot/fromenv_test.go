package boot

import (
	"context"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// lambdaEnv sets what every function is given: credentials that reach no
// real account, and every table's name.
func lambdaEnv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_PROFILE": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	for _, tb := range schema.Tables() {
		t.Setenv(tb.EnvVar, "boot-test-"+tb.ID)
	}
	for _, b := range deploy.Buckets() {
		t.Setenv(b.EnvVar, "boot-test-"+b.ID)
	}
}

// TestFromEnv: each function's Deps hold what its environment gives and
// only what it uses; a setting it cannot run without fails the init.
func TestFromEnv(t *testing.T) {
	providers := map[string]string{
		"WATHQ_BASE_URL": "http://127.0.0.1:9", "YENTE_BASE_URL": "http://127.0.0.1:9",
		// Secrets by value, as locally (no Secrets Manager call).
		"WATHQ_API_KEY": "k", "YENTE_API_KEY": "k",
	}
	cases := []struct {
		name, function string
		env            map[string]string
		check          func(t *testing.T, d Deps)
		wantErr        string
	}{
		{name: "reader", function: "list-entities", check: func(t *testing.T, d Deps) {
			if d.Store == nil || d.Log == nil || d.Intake != nil || d.Deliveries != nil || d.Metrics != nil || d.Readers != nil || d.Blobs != nil {
				t.Errorf("Deps = %+v, want the store and the logger only", d)
			}
			if d.Clock == nil {
				t.Error("Deps has no clock: every function needs one")
			}
		}},
		{name: "intake", function: "create-entity", env: providers, check: func(t *testing.T, d Deps) {
			r, ok := d.Intake.(*checks.Runner)
			if !ok || r.Registries[checks.ProviderWathq] == nil || r.Screeners[checks.ProviderOpenSanctions] == nil {
				t.Errorf("Intake = %#v, want Wathq and yente", d.Intake)
			}
			if ok && r.Clock == nil {
				t.Error("Intake has no clock")
			}
			// Answers over 350 KB go to the evidence bucket.
			if s3, isS3 := d.Blobs.(blob.S3); !isS3 || s3.Bucket != "boot-test-evidence" || !ok || r.Blobs == nil {
				t.Errorf("Blobs = %#v, the runner's %v: want the evidence bucket in both", d.Blobs, r.Blobs)
			}
		}},
		{name: "no evidence bucket", function: "provider-webhook", env: map[string]string{"EVIDENCE_BUCKET": ""},
			wantErr: "provider-webhook: boot: EVIDENCE_BUCKET is not set"},
		{name: "intake without its provider", function: "decision", env: map[string]string{"YENTE_BASE_URL": "http://127.0.0.1:9"},
			wantErr: "decision: intake providers: boot: WATHQ_BASE_URL is not set"},
		{name: "webhook secret", function: "provider-webhook",
			env: map[string]string{"OPENSANCTIONS_WEBHOOK_SECRET": "whsec_ZXZzLWxvY2FsLXdlYmhvb2stc2VjcmV0LTAwMDE="},
			check: func(t *testing.T, d Deps) {
				if len(d.WebhookSecrets[checks.ProviderOpenSanctions]) != 1 || d.Readers[checks.ProviderOpenSanctions] == nil {
					t.Errorf("secrets %v, readers %v: want one secret and the yente reader", d.WebhookSecrets, d.Readers)
				}
			}},
		{name: "no webhook secret: refused, not an init failure", function: "provider-webhook", check: func(t *testing.T, d Deps) {
			if len(d.WebhookSecrets) != 0 {
				t.Errorf("secrets %v, want none", d.WebhookSecrets)
			}
		}},
		{name: "queue and allow list", function: "admin",
			env: map[string]string{"DELIVERIES_QUEUE_URL": "http://127.0.0.1:9/q", "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8"},
			check: func(t *testing.T, d Deps) {
				if d.Deliveries == nil || d.Allow.String() != "127.0.0.0/8" {
					t.Errorf("Deliveries %v, Allow %v: want the queue and 127.0.0.0/8", d.Deliveries, d.Allow)
				}
			}},
		{name: "settings area", function: "admin",
			env: map[string]string{"DELIVERIES_QUEUE_URL": "http://127.0.0.1:9/q", "SETTINGS_BASE_URL": "https://abc.execute-api.me-central-1.amazonaws.com/dev"},
			check: func(t *testing.T, d Deps) {
				if d.SettingsURL != "https://abc.execute-api.me-central-1.amazonaws.com/dev" {
					t.Errorf("SettingsURL = %q", d.SettingsURL)
				}
			}},
		{name: "no settings area: portal.link alone fails", function: "admin",
			env: map[string]string{"DELIVERIES_QUEUE_URL": "http://127.0.0.1:9/q"},
			check: func(t *testing.T, d Deps) {
				if d.SettingsURL != "" {
					t.Errorf("SettingsURL = %q", d.SettingsURL)
				}
			}},
		{name: "bad settings area", function: "admin",
			env:     map[string]string{"DELIVERIES_QUEUE_URL": "http://127.0.0.1:9/q", "SETTINGS_BASE_URL": "abc.execute-api.me-central-1.amazonaws.com"},
			wantErr: "admin: SETTINGS_BASE_URL: portal:"},
		{name: "no queue", function: "review-events", wantErr: "review-events: boot: DELIVERIES_QUEUE_URL is not set"},
		{name: "bad allow list", function: "webhook-delivery", env: map[string]string{"WEBHOOK_ALLOWED_NETWORKS": "everywhere"},
			wantErr: "webhook-delivery: WEBHOOK_ALLOWED_NETWORKS"},
		{name: "metrics", function: "webhook-delivery", check: func(t *testing.T, d Deps) {
			if d.Metrics == nil {
				t.Error("no metrics writer")
			}
		}},
		{name: "storeless", function: "api-description", check: func(t *testing.T, d Deps) {
			if d.Store != nil || d.Log == nil || d.Clock == nil {
				t.Errorf("Deps = %+v, want the logger and the clock only", d)
			}
		}},
		{name: "unknown function", function: "delete-entity", wantErr: `no function "delete-entity"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lambdaEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			d, err := FromEnv(context.Background(), c.function)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("FromEnv = %v, want an error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, d)
			if _, err := Handler(c.function, d); err != nil {
				t.Errorf("Handler of FromEnv's Deps: %v", err)
			}
		})
	}
}
