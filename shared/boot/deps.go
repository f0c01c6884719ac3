package boot

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/metrics"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/workflow"
)

// Deps is what a function's handler is built from and what differs between
// AWS (FromEnv) and the local runner and tests. A function uses only some
// fields (its needs in the table); Handler refuses a Deps lacking one it
// must have.
type Deps struct {
	// Store reads and writes the tables (in AWS, only the function's own).
	Store *store.Store
	// Log is the logger of the HTTP functions' adapter (slog.Default()
	// when nil).
	Log *slog.Logger
	// Intake runs the intake checks against the registry and screening
	// providers: create-entity, and the decision function's queue_checks.
	Intake api.IntakeRunner
	// Readers read the screening results provider webhooks bring, by
	// provider key (provider-webhook).
	Readers map[string]screening.Reader
	// WebhookSecrets verify provider webhooks, by provider key; a provider
	// without one is refused (fail closed).
	WebhookSecrets map[string][]webhooks.Secret
	// Deliveries is the deliveries queue: review-events sends one message
	// per delivery to it, admin its redeliveries.
	Deliveries delivery.Sender
	// Allow lists the networks a webhook endpoint may use although private
	// or loopback (none in AWS): admin checks endpoint URLs by it,
	// webhook-delivery's client connects by it.
	Allow webhooks.AllowList
	// WebhookTimeout bounds one delivery's POST (webhooks.DefaultTimeout
	// when zero).
	WebhookTimeout time.Duration
	// Metrics takes webhook-delivery's metric lines (none when nil).
	Metrics *metrics.Writer
	// SettingsURL is the settings area's base URL: admin's sign-in links
	// start with it (none: portal.link fails).
	SettingsURL string
	// Blobs is the evidence blob store (the evidence bucket in AWS, a
	// directory locally): where create-entity, decision and
	// provider-webhook put the answers over 350 KB, and admin reads them.
	// Without it a large answer is not kept (stored false, with why) and
	// evidence.get fails on one kept.
	Blobs Blobs
	// Records is the records bucket under Object Lock (records.S3 in AWS,
	// records.Dir locally): audit-export locks what must be kept into it,
	// admin checks DynamoDB against it.
	Records Records
	// Passkeys is the relying party the operators' passkeys are bound to
	// (the console's domain and origins): the decision function checks
	// signatures against it, the web function runs its ceremonies. Its
	// zero value accepts no signature (declared decisions only).
	Passkeys passkey.Config
	// Workflow is the decision state machine the console starts and
	// answers (the web function): Step Functions in AWS, make local's
	// stand-in locally; nil: the console refuses to decide.
	Workflow workflow.Workflow
	// Clock is every handler's clock (required): domain.SystemClock in AWS,
	// a fixed or stepping one in tests.
	Clock domain.Clock
}

// need is a part of Deps a function uses beyond the store and the logger:
// FromEnv reads only those, Handler checks those it must have.
type need uint

const (
	needIntake   need = 1 << iota // Intake
	needInbound                   // Readers and WebhookSecrets
	needQueue                     // Deliveries
	needAllow                     // Allow
	needMetrics                   // Metrics
	needSettings                  // SettingsURL
	needBlobs                     // Blobs
	needPasskeys                  // Passkeys
	needWorkflow                  // Workflow
	needRecords                   // Records
	// storeless: the function reads no table (api-description), so
	// FromEnv builds no store and Handler does not ask for one.
	storeless
)

func (n need) has(m need) bool { return n&m != 0 }

// check reports the parts d lacks that a function with needs n cannot run
// without. Allow, Metrics, WebhookSecrets and SettingsURL may be empty: none
// allowed, none written, every webhook refused, no sign-in link minted.
func (d Deps) check(n need) error {
	var missing []string
	if d.Store == nil && !n.has(storeless) {
		missing = append(missing, "Store")
	}
	if n.has(needIntake) && d.Intake == nil {
		missing = append(missing, "Intake")
	}
	if n.has(needInbound) && len(d.Readers) == 0 {
		missing = append(missing, "Readers")
	}
	if n.has(needQueue) && d.Deliveries == nil {
		missing = append(missing, "Deliveries")
	}
	if n.has(needRecords) && d.Records == nil {
		missing = append(missing, "Records")
	}
	if d.Clock == nil {
		missing = append(missing, "Clock")
	}
	if len(missing) > 0 {
		return fmt.Errorf("Deps lacks %s", strings.Join(missing, ", "))
	}
	return nil
}

func (d Deps) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}

func (d Deps) webhookTimeout() time.Duration {
	if d.WebhookTimeout > 0 {
		return d.WebhookTimeout
	}
	return webhooks.DefaultTimeout
}

// signatures is the decision function's signature checker: nil without a
// relying party, so that a signed decision is refused rather than checked
// against nothing.
func (d Deps) signatures() decisions.Signatures {
	if d.Passkeys.RPID == "" {
		return nil
	}
	return &passkey.Service{Store: d.Store, Clock: d.Clock, Config: d.Passkeys}
}
