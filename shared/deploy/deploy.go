// Package deploy describes each function as it is deployed: its name, its
// CloudFormation logical id, its size, and exactly which DynamoDB actions it
// may take on which tables, its settings, secrets, queues, event sources and
// API routes. The CDK stack builds its functions and IAM policies from it,
// infra/sam generates template.yaml from it, and the runtime-emulator test
// gives each artifact the environment it describes.
package deploy

import (
	"fmt"
	"sort"

	"github.com/evs-kyb/evs/shared/schema"
)

// Grant allows actions on a table (and, with Indexes, on its indexes, which
// Query needs when it reads one).
type Grant struct {
	Table   string // schema table id
	Actions []string
	Indexes bool
}

// Setting is a non-secret environment variable of a function, set per
// deployment: a CDK context value or a SAM template parameter of the same
// name (Parameter), with a default.
type Setting struct {
	EnvVar    string
	Parameter string
	Default   string
	// Description is the template parameter's.
	Description string
}

// Secret is a credential a function reads at init from AWS Secrets Manager:
// EnvVar names the secret's ARN. The stack creates each secret (with a
// placeholder value an operator replaces); SecretID is its logical name.
// Locally the value itself may be given in the variable named by EnvVar
// without its _SECRET_ARN suffix.
type Secret struct {
	EnvVar   string // e.g. WATHQ_API_KEY_SECRET_ARN
	SecretID string // e.g. WathqApiKey (logical id WathqApiKeySecret)
	// Description says what the secret holds and who reads it.
	Description string
	// Holds names the value an operator puts in ("the Wathq API key").
	Holds string
}

// Queue ids.
const (
	// QueueDeliveries carries one message per delivery, from review-events
	// (and redeliveries) to webhook-delivery.
	QueueDeliveries = "deliveries"
	// QueueDeliveriesDLQ receives delivery messages that failed
	// MaxReceiveCount times (the delivery function could not even record
	// them: DynamoDB unreachable, a malformed message).
	QueueDeliveriesDLQ = "deliveries_dlq"
	// QueueReviewEventsFailures is review-events' on-failure destination:
	// stream records that still failed after the bounded retries.
	QueueReviewEventsFailures = "review_events_failures"
)

// Queue is an SQS queue of the service.
type Queue struct {
	ID string
	// LogicalID is its CloudFormation logical id.
	LogicalID string
	// EnvVar holds its URL in the environment of the functions that send to it.
	EnvVar string
	// Description says what it carries (the stacks' outputs of its URL).
	Description              string
	VisibilityTimeoutSeconds int
	RetentionDays            int
	// DeadLetter and MaxReceiveCount: where a message goes after failing
	// that many receives.
	DeadLetter      string
	MaxReceiveCount int
}

// Queues lists the service's queues.
func Queues() []Queue {
	delivery := MustFunction("webhook-delivery")
	return []Queue{
		{
			ID: QueueDeliveries, LogicalID: "DeliveriesQueue", EnvVar: "DELIVERIES_QUEUE_URL",
			Description: "the deliveries queue (review-events to webhook-delivery)",
			// Six times the consumer's timeout, as Lambda advises for SQS
			// sources: a message is never visible again while a batch holding
			// it may still run.
			VisibilityTimeoutSeconds: 6 * delivery.TimeoutSeconds, RetentionDays: 4,
			DeadLetter: QueueDeliveriesDLQ, MaxReceiveCount: 5,
		},
		{ID: QueueDeliveriesDLQ, LogicalID: "DeliveriesDeadLetterQueue", VisibilityTimeoutSeconds: 30, RetentionDays: 14,
			Description: "the deliveries' dead-letter queue; redrive it with aws sqs start-message-move-task"},
		{ID: QueueReviewEventsFailures, LogicalID: "ReviewEventsFailureQueue", VisibilityTimeoutSeconds: 30, RetentionDays: 14,
			Description: "review-events' on-failure queue (descriptions of stream batches that failed)"},
	}
}

// QueueByID returns the queue id, or an error naming it.
func QueueByID(id string) (Queue, error) {
	if q, ok := LookupQueue(id); ok {
		return q, nil
	}
	return Queue{}, fmt.Errorf("deploy: no queue %q in Queues()", id)
}

// MustQueue is QueueByID for initialization: a miss is a programming
// error, so it panics rather than hand back a zero Queue.
func MustQueue(id string) Queue { return must(QueueByID(id)) }

// LookupQueue returns the queue id.
func LookupQueue(id string) (Queue, bool) {
	for _, q := range Queues() {
		if q.ID == id {
			return q, true
		}
	}
	return Queue{}, false
}

// StreamSource feeds a function from a table's stream.
type StreamSource struct {
	Table     string
	BatchSize int
	// A failing batch is retried at most MaxRetries times, split in two on
	// each error (bisect), then its records go to OnFailure (a queue id).
	MaxRetries   int
	MaxRecordAge int // seconds
	OnFailure    string
}

// QueueSource feeds a function from a queue, reporting failures per message.
type QueueSource struct {
	Queue     string
	BatchSize int
}

// Function is one Lambda function.
type Function struct {
	// Name is the directory under functions/ and under build/.
	Name string
	// LogicalID is the function's CloudFormation logical id, the same in the
	// CDK stack and in template.yaml.
	LogicalID      string
	Description    string
	MemoryMB       int
	TimeoutSeconds int
	Grants         []Grant
	Settings       []Setting
	Secrets        []Secret
	// SendsTo lists the queues it sends to (their URLs in its environment).
	SendsTo []string
	// Stream or Queue is its event source, if it has one.
	Stream *StreamSource
	Queue  *QueueSource
	// RefusesWithErrors: the function answers a refused request (an
	// invalid, forbidden or conflicting one) with a named Lambda function
	// error by design, logged at INFO, so its Lambda Errors count refusals
	// too and are not alarmed on. Its alarm counts its faults instead: the
	// lines it logs at ERROR and its timeouts.
	RefusesWithErrors bool
}

// Runtime, architecture and handler of every function: a Go binary named
// bootstrap on Amazon Linux 2023, arm64.
const (
	Runtime      = "provided.al2023"
	Architecture = "arm64"
	Handler      = "bootstrap"
)

// LogLevelVar is set on every function besides its tables.
const LogLevelVar = "LOG_LEVEL"

const (
	getItem      = "dynamodb:GetItem"
	query        = "dynamodb:Query"
	batchGetItem = "dynamodb:BatchGetItem"
	putItem      = "dynamodb:PutItem"
	updateItem   = "dynamodb:UpdateItem"
	deleteItem   = "dynamodb:DeleteItem"
	scan         = "dynamodb:Scan"
	// condCheck: a transaction's ConditionCheck (the account exists).
	condCheck = "dynamodb:ConditionCheckItem"
)

// Provider settings and secrets (issue: create entity).
var (
	settingWathqURL = Setting{EnvVar: "WATHQ_BASE_URL", Parameter: "WathqBaseUrl", Default: "https://api.wathq.sa",
		Description: "Base URL of the Wathq commercial-registration API (WATHQ_BASE_URL)."}
	settingYenteURL = Setting{EnvVar: "YENTE_BASE_URL", Parameter: "YenteBaseUrl", Default: "https://api.opensanctions.org",
		Description: "Base URL of the OpenSanctions yente matching API (YENTE_BASE_URL)."}
	settingDataset = Setting{EnvVar: "YENTE_DATASET", Parameter: "YenteDataset", Default: "default",
		Description: "yente dataset screened against (YENTE_DATASET)."}
	settingThreshold = Setting{EnvVar: "YENTE_THRESHOLD", Parameter: "YenteThreshold", Default: "0.7",
		Description: "Score at or above which a yente result is a match (YENTE_THRESHOLD)."}

	// Networks webhook deliveries may reach although private or loopback
	// (CIDRs): none in AWS; make local permits loopback receivers.
	settingWebhookAllow = Setting{EnvVar: "WEBHOOK_ALLOWED_NETWORKS", Parameter: "WebhookAllowedNetworks", Default: "",
		Description: "CIDRs (comma-separated) webhook deliveries may reach although private or loopback (WEBHOOK_ALLOWED_NETWORKS); none in AWS."}

	secretWathq = Secret{EnvVar: "WATHQ_API_KEY_SECRET_ARN", SecretID: "WathqApiKey", Holds: "the Wathq API key",
		Description: "Wathq API key (apiKey header) of the create-entity function's registry lookups."}
	secretYente = Secret{EnvVar: "YENTE_API_KEY_SECRET_ARN", SecretID: "YenteApiKey", Holds: "the yente API key",
		Description: "OpenSanctions yente API key (Authorization ApiKey) of the create-entity function's screening."}
	secretWebhook = Secret{EnvVar: "OPENSANCTIONS_WEBHOOK_SECRET_SECRET_ARN", SecretID: "OpenSanctionsWebhookSecret", Holds: "the OpenSanctions webhook secret (whsec_...)",
		Description: "Standard Webhooks secret(s) (whsec_..., comma-separated during a rotation) verifying OpenSanctions screening webhooks."}
)

// Functions lists every function of the service.
func Functions() []Function {
	return []Function{
		{
			Name: "authorizer", LogicalID: "AuthorizerFunction",
			Description: "REST API REQUEST authorizer: Bearer API key to account and permissions",
			MemoryMB:    256, TimeoutSeconds: 5,
			Grants: []Grant{{Table: schema.APIKeys, Actions: []string{getItem}}},
		},
		{
			Name: "list-entities", LogicalID: "ListEntitiesFunction",
			Description: "GET /api/v1/entities",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Accounts, Actions: []string{getItem}},
				{Table: schema.Entities, Actions: []string{query, batchGetItem}, Indexes: true},
			},
		},
		{
			Name: "create-entity", LogicalID: "CreateEntityFunction",
			Description: "POST /api/v1/entities: validation, intake checks, one transaction",
			// Providers answer within their check timeouts (8 s at most);
			// API Gateway gives up at 29 s.
			MemoryMB: 512, TimeoutSeconds: 29,
			Grants: []Grant{
				// The counters; the registration claim and the commit lease,
				// put and deleted.
				{Table: schema.Accounts, Actions: []string{getItem, putItem, updateItem, deleteItem}},
				{Table: schema.Counters, Actions: []string{updateItem}},
				{Table: schema.Entities, Actions: []string{getItem, putItem}},
				{Table: schema.Checks, Actions: []string{putItem}},
				{Table: schema.Reviews, Actions: []string{putItem}},
				{Table: schema.Idempotency, Actions: []string{getItem, putItem, updateItem, deleteItem}},
			},
			Settings: []Setting{settingWathqURL, settingYenteURL, settingDataset, settingThreshold},
			Secrets:  []Secret{secretWathq, secretYente},
		},
		{
			Name: "provider-webhook", LogicalID: "ProviderWebhookFunction",
			Description: "POST /webhooks/{provider}: signed screening results",
			MemoryMB:    256, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Checks, Actions: []string{getItem, updateItem}},
				{Table: schema.Entities, Actions: []string{getItem, updateItem}},
				{Table: schema.InboundWebhooks, Actions: []string{putItem}},
			},
			Settings: []Setting{settingDataset, settingThreshold},
			Secrets:  []Secret{secretWebhook},
		},
		{
			Name: "get-entity", LogicalID: "GetEntityFunction",
			Description: "GET /api/v1/entities/{id} (JSON and Markdown)",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Entities, Actions: []string{getItem}},
				{Table: schema.Checks, Actions: []string{query}, Indexes: true},
				{Table: schema.Reviews, Actions: []string{query}, Indexes: true},
			},
		},
		{
			Name: "get-review", LogicalID: "GetReviewFunction",
			Description: "GET /api/v1/entity_reviews/{id} (JSON and Markdown)",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Reviews, Actions: []string{getItem}},
				{Table: schema.Entities, Actions: []string{getItem}},
			},
		},
		{
			Name: "decision", LogicalID: "DecisionFunction",
			Description: "Task of the decision state machine: validates and applies operator actions on reviews",
			// queue_checks calls the providers (8 s per check at most).
			MemoryMB: 512, TimeoutSeconds: 30,
			Grants: []Grant{
				// The account, its operators and country configurations.
				{Table: schema.Accounts, Actions: []string{getItem}},
				{Table: schema.Reviews, Actions: []string{getItem, query, putItem}, Indexes: true},
				{Table: schema.Entities, Actions: []string{getItem, updateItem}},
				{Table: schema.Checks, Actions: []string{query, putItem}, Indexes: true},
				{Table: schema.Counters, Actions: []string{updateItem}},
				{Table: schema.Audit, Actions: []string{getItem, putItem}},
			},
			Settings: []Setting{settingWathqURL, settingYenteURL, settingDataset, settingThreshold},
			Secrets:  []Secret{secretWathq, secretYente},
			// A refused action (IllegalTransition, Conflict, …) fails the
			// task, and the execution, with its name.
			RefusesWithErrors: true,
		},
		{
			Name: "periodic-reviews", LogicalID: "PeriodicReviewsFunction",
			Description: "Daily (EventBridge): opens the periodic reviews that are due",
			MemoryMB:    256, TimeoutSeconds: 300,
			Grants: []Grant{
				// Every account's settings: a scan, once a day.
				{Table: schema.Accounts, Actions: []string{scan}},
				{Table: schema.Entities, Actions: []string{query, updateItem}},
				{Table: schema.Reviews, Actions: []string{query, putItem}, Indexes: true},
				{Table: schema.Counters, Actions: []string{updateItem}},
				{Table: schema.Audit, Actions: []string{putItem}},
			},
		},
		{
			Name: "review-events", LogicalID: "ReviewEventsFunction",
			Description: "Reviews table stream: review state changes to one delivery message per subscribed endpoint",
			MemoryMB:    256, TimeoutSeconds: 30,
			Grants: []Grant{
				{Table: schema.WebhookEndpoints, Actions: []string{query}},
			},
			SendsTo: []string{QueueDeliveries},
			Stream: &StreamSource{
				Table: schema.Reviews, BatchSize: 100, MaxRetries: 5, MaxRecordAge: 86400,
				OnFailure: QueueReviewEventsFailures,
			},
		},
		{
			Name: "webhook-delivery", LogicalID: "WebhookDeliveryFunction",
			Description: "Deliveries queue: claims, signs and posts each webhook once, recording the attempt",
			// A batch's posts run side by side, each within the 10 s delivery timeout.
			MemoryMB: 256, TimeoutSeconds: 60,
			Grants: []Grant{
				{Table: schema.WebhookEndpoints, Actions: []string{getItem}},
				{Table: schema.WebhookDeliveries, Actions: []string{getItem, updateItem}},
			},
			Settings: []Setting{settingWebhookAllow},
			Queue:    &QueueSource{Queue: QueueDeliveries, BatchSize: 10},
		},
		{
			Name: "admin", LogicalID: "AdminFunction",
			Description: "Administration of a stage (Lambda Invoke only, no route): accounts, countries, API keys, operators, webhook endpoints, deliveries, audit",
			MemoryMB:    256, TimeoutSeconds: 30,
			Grants: []Grant{
				// Accounts, their countries and operators; account.list scans.
				{Table: schema.Accounts, Actions: []string{getItem, query, scan, putItem, updateItem, condCheck}},
				{Table: schema.APIKeys, Actions: []string{getItem, query, putItem, updateItem}, Indexes: true},
				{Table: schema.Counters, Actions: []string{updateItem}},
				{Table: schema.Audit, Actions: []string{getItem, query, putItem}, Indexes: true},
				{Table: schema.WebhookEndpoints, Actions: []string{getItem, query, putItem, deleteItem}},
				{Table: schema.WebhookDeliveries, Actions: []string{getItem, query, putItem, updateItem}, Indexes: true},
			},
			Settings: []Setting{settingWebhookAllow},
			// Redeliveries.
			SendsTo: []string{QueueDeliveries},
			// A refused command fails with InvalidRequest, NotFound,
			// Forbidden or Conflict for its caller to read.
			RefusesWithErrors: true,
		},
	}
}

// Lookup returns the function named name.
func Lookup(name string) (Function, bool) {
	for _, f := range Functions() {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// FunctionByName returns the function named name, or an error naming it.
func FunctionByName(name string) (Function, error) {
	if f, ok := Lookup(name); ok {
		return f, nil
	}
	return Function{}, fmt.Errorf("deploy: no function %q in Functions()", name)
}

// MustFunction is FunctionByName for initialization (a main, a package's
// constructor): a miss panics instead of becoming a zero Function whose
// zero timeout or memory would be silently used.
func MustFunction(name string) Function { return must(FunctionByName(name)) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err.Error())
	}
	return v
}

// TableIDs lists the tables the function uses, sorted.
func (f Function) TableIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range f.Grants {
		if !seen[g.Table] {
			seen[g.Table] = true
			out = append(out, g.Table)
		}
	}
	sort.Strings(out)
	return out
}

// EnvVarNames lists the environment variables the function is given: one per
// table it uses, its settings, its secrets' ARNs, and the log level.
func (f Function) EnvVarNames() []string {
	out := []string{LogLevelVar}
	for _, id := range f.TableIDs() {
		out = append(out, schema.MustTable(id).EnvVar)
	}
	for _, s := range f.Settings {
		out = append(out, s.EnvVar)
	}
	for _, s := range f.Secrets {
		out = append(out, s.EnvVar)
	}
	for _, id := range f.SendsTo {
		out = append(out, MustQueue(id).EnvVar)
	}
	sort.Strings(out)
	return out
}

// Secrets lists every secret of the service, each once, by SecretID.
func Secrets() []Secret {
	return eachOnce(func(f Function) []Secret { return f.Secrets }, func(s Secret) string { return s.SecretID })
}

// Settings lists every setting of the service, each once, by Parameter.
func Settings() []Setting {
	return eachOnce(func(f Function) []Setting { return f.Settings }, func(s Setting) string { return s.Parameter })
}

// eachOnce gathers what the functions list, in catalogue order, keeping the
// first of each key.
func eachOnce[T any](of func(Function) []T, key func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, f := range Functions() {
		for _, v := range of(f) {
			if k := key(v); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// SecretLogicalID is a secret's CloudFormation logical id.
func SecretLogicalID(secretID string) string { return secretID + "Secret" }

// Route is the API route the function serves, if it serves one.
func (f Function) Route() (Route, bool) { return RouteFor(f.Name) }

// TableLogicalID is a table's CloudFormation logical id, the same in the CDK
// stack and in template.yaml: "entities" is "EntitiesTable".
func TableLogicalID(id string) string {
	out := []byte{}
	upper := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '_' {
			upper = true
			continue
		}
		if upper && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = false
		out = append(out, c)
	}
	return string(out) + "Table"
}
