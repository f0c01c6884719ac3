// Package schema is the one definition of every DynamoDB table: keys, indexes,
// streams and TTL. Local table creation, the CDK stack and the generator of
// template.yaml (infra/sam) all read it, so they cannot disagree.
package schema

import (
	"fmt"
	"os"
	"strings"
)

// AttrType is a DynamoDB key attribute type.
type AttrType string

const (
	String AttrType = "S"
	Number AttrType = "N"
)

// Attr is a key attribute.
type Attr struct {
	Name string
	Type AttrType
}

// Projection says which attributes an index copies.
type Projection string

const (
	ProjectAll      Projection = "ALL"
	ProjectKeysOnly Projection = "KEYS_ONLY"
	ProjectInclude  Projection = "INCLUDE"
)

// Index is a secondary index. A local index shares the table's partition key,
// so PartitionKey is left empty; local indexes allow strongly consistent reads.
type Index struct {
	Name         string
	Local        bool
	PartitionKey Attr
	SortKey      Attr
	Projection   Projection
	NonKeyAttrs  []string // with ProjectInclude
}

// StreamView is the stream view type of a table, or "" for no stream.
type StreamView string

const NewAndOldImages StreamView = "NEW_AND_OLD_IMAGES"

// Table describes one table.
type Table struct {
	// ID is the logical name, used for construct ids and local table names.
	ID string
	// EnvVar holds the physical table name in every function's environment.
	EnvVar       string
	PartitionKey Attr
	SortKey      *Attr
	Indexes      []Index
	Stream       StreamView
	TTLAttr      string
	// CustomerKey encrypts the table on AWS with a customer-managed KMS key
	// of its own (rotated yearly) instead of the AWS-managed one, so that
	// who may decrypt it is the key policy's to say and its use is logged
	// by CloudTrail under that key.
	CustomerKey bool
}

// Logical table ids.
const (
	Accounts = "accounts"
	APIKeys  = "api_keys"
	Counters = "counters"
	Entities = "entities"
	Checks   = "checks"
	Reviews  = "reviews"
	// Idempotency keeps create requests' Idempotency-Keys for 24 hours.
	Idempotency = "idempotency"
	// InboundWebhooks remembers the webhook-ids of provider webhooks, so a
	// replay changes nothing.
	InboundWebhooks = "inbound_webhooks"
	// Audit keeps one record per operator action, keyed by the action's id.
	Audit = "audit"
	// AuditExports keeps the daily exports of the audit chain heads made
	// before the records bucket took them (audit-export): kept readable,
	// never changed, written by no function any more.
	AuditExports = "audit_exports"
	// WebhookEndpoints holds subscribers' URLs, event kinds and secrets.
	WebhookEndpoints = "webhook_endpoints"
	// WebhookDeliveries holds one item per delivery attempt.
	WebhookDeliveries = "webhook_deliveries"
	// PortalTokens holds the settings area's sign-in links and sessions.
	PortalTokens = "portal_tokens"
	// Evidence keeps each check's provider answer as received, by check id.
	Evidence = "evidence"
)

// Index names.
const (
	// APIKeysByAccount lists an account's keys by id.
	APIKeysByAccount         = "by_account"
	EntitiesByCountrySeq     = "by_country_seq"
	EntitiesByUpdated        = "by_updated"
	EntitiesByCountryUpdated = "by_country_updated"
	ByEntity                 = "by_entity"
	// ReviewsByQueue is the operator console's queue: an account's active
	// reviews, oldest first.
	ReviewsByQueue = "by_queue"
	// AuditByEntity orders an entity's audit records by time.
	AuditByEntity = "by_entity_time"
	// Deliveries: newest first overall, by endpoint, by review, by status.
	DeliveriesByCreated  = "by_created"
	DeliveriesByEndpoint = "by_endpoint"
	DeliveriesByReview   = "by_review"
	DeliveriesByStatus   = "by_status"
)

// AuditListedAttrs are an audit record's attributes a listing or a chain's
// check reads (its keys aside): all but dossier_md, the dossier Markdown a
// decision keeps, which only audit.dossier reads, by its key.
func AuditListedAttrs() []string {
	return []string{"action", "operator_id", "operator_name", "actor", "request_id", "second_approver_id", "review_id",
		"entity_id", "reason", "before", "after", "at", "seen_etag", "dossier_etag", "dossier_sha256",
		"identity", "decision_document", "signatures", "chain_v", "seq", "prev_hash", "hash"}
}

// accountID is the partition key of every tenant's table.
func accountID() Attr { return Attr{"account_id", Number} }

// entityKey, "<account_id>#<entity_id>", partitions the global indexes that
// list one entity's items: an entity's items are one key and an account's
// spread over many partitions, with no 10 GB limit per account (a table with
// a local index has one per partition key value).
func entityKey() Attr { return Attr{"entity_key", String} }

// accountPrefixed are the key attributes whose values start with
// "<account_id>#" (written by shared/store), so an index keyed by one of
// them keeps an account's items apart from every other account's.
var accountPrefixed = map[string]bool{"country_key": true, "entity_key": true, "endpoint_key": true, "review_key": true, "status_key": true}

// createdKey, "<created_at>#<delivery id>", orders every index of the
// deliveries by time.
func createdKey() Attr { return Attr{"created_key", String} }

// AccountScoped reports whether the values of the key attribute a start with
// the account id: account_id itself, or one of the "<account_id>#..." keys.
func AccountScoped(a Attr) bool { return a.Name == "account_id" || accountPrefixed[a.Name] }

// Tables returns every table of the service.
func Tables() []Table {
	return []Table{
		{
			// The account item, its country configurations and its counters.
			ID: Accounts, EnvVar: "ACCOUNTS_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"sk", String},
			// Dated when the relationship ends (retention.go).
			TTLAttr: ExpiresAt,
		},
		{
			// API keys by the SHA-256 of the key. This is the one table whose key
			// does not start with the account id: it is how the account is found.
			ID: APIKeys, EnvVar: "API_KEYS_TABLE",
			PartitionKey: Attr{"key_hash", String},
			Indexes: []Index{
				// An account's keys, for administrators (never on a request path).
				{Name: APIKeysByAccount, PartitionKey: accountID(), SortKey: Attr{"key_id", String}, Projection: ProjectAll},
			},
		},
		{
			// Service-wide id sequences of what administrators create
			// (accounts, operators, endpoints): never written by a create.
			ID: Counters, EnvVar: "COUNTERS_TABLE",
			PartitionKey: Attr{"name", String},
		},
		{
			// An entity's id is its place in the account's sequence (1, 2, …
			// in creation order), so the unfiltered listing's page p is a key
			// range of the table itself, strongly consistent. No local index:
			// one would cap an account's item collection at 10 GB (about 3 M
			// entities); global indexes have no such cap.
			ID: Entities, EnvVar: "ENTITIES_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"entity_id", Number},
			Indexes: []Index{
				// "<account>#<country>" with the dense per-country sequence:
				// a country's page p is a key range; its items are then read
				// from the table by key (store/entity_list.go).
				{Name: EntitiesByCountrySeq, PartitionKey: Attr{"country_key", String}, SortKey: Attr{"country_seq", Number}, Projection: ProjectKeysOnly},
				// updated_since: each entity's change time; the table's keys
				// give its place in the account's sequence, so a page is found
				// from whichever side of the threshold is smaller
				// (store/entity_list_updated.go).
				{Name: EntitiesByUpdated, PartitionKey: accountID(), SortKey: Attr{"updated_at", String}, Projection: ProjectKeysOnly},
				// The same within a country, with the place in the country's
				// sequence.
				{Name: EntitiesByCountryUpdated, PartitionKey: Attr{"country_key", String}, SortKey: Attr{"updated_at", String}, Projection: ProjectInclude, NonKeyAttrs: []string{"country_seq"}},
			},
			// Dated when the relationship ends (retention.go).
			TTLAttr: ExpiresAt,
		},
		{
			ID: Checks, EnvVar: "CHECKS_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"check_id", Number},
			Indexes: []Index{
				// An entity's check ids. Keys only: the checks are then read
				// from the table, strongly consistently (store/entity_children.go).
				{Name: ByEntity, PartitionKey: entityKey(), SortKey: Attr{"check_id", Number}, Projection: ProjectKeysOnly},
			},
			// Dated when the relationship ends (retention.go).
			TTLAttr: ExpiresAt,
		},
		{
			// Its stream feeds review-events, which turns state changes into webhooks.
			ID: Reviews, EnvVar: "REVIEWS_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"review_id", Number},
			Indexes: []Index{
				// An entity's review ids, as for checks.
				{Name: ByEntity, PartitionKey: entityKey(), SortKey: Attr{"review_id", Number}, Projection: ProjectKeysOnly},
				// The queue: queue_key, "<created_at>#<review id>" (the
				// Unix epoch for a review due now, which a screening
				// answer opened: domain.QueuePositionOf), is
				// written only while the review is active (open, in
				// progress, escalated), so the index is sparse and a page
				// reads no finished review, however many the account has.
				// It keeps whole items: a page filters on them
				// (FilterExpression) and shows them without reading the
				// table again.
				{Name: ReviewsByQueue, PartitionKey: accountID(), SortKey: Attr{"queue_key", String}, Projection: ProjectAll},
			},
			Stream: NewAndOldImages,
			// Dated when the relationship ends (retention.go).
			TTLAttr: ExpiresAt,
		},
		{
			// One record per operator action; the action id makes a repeat a no-op.
			ID: Audit, EnvVar: "AUDIT_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"action_id", String},
			Indexes: []Index{
				// An entity's trail in order: entity_key, then "<time>#<action id>".
				// Only operators read it, so eventually consistent is enough,
				// and it copies the records (written once, never changed) but
				// for the dossier Markdown a decision keeps (up to 300 KB).
				{Name: AuditByEntity, PartitionKey: entityKey(), SortKey: Attr{"at_key", String}, Projection: ProjectInclude, NonKeyAttrs: AuditListedAttrs()},
			},
			// Feeds audit-export, which copies each record into the
			// records bucket under Object Lock. The old image too: a
			// record changed behind the service's back shows what it was.
			Stream: NewAndOldImages,
			// Dated when the relationship ends (retention.go).
			TTLAttr: ExpiresAt,
		},
		{
			// The daily export of the audit chains' heads: export_key is
			// "<entity id, 20 digits>#<day>", so an entity's latest export
			// is the last of its prefix.
			ID: AuditExports, EnvVar: "AUDIT_EXPORTS_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"export_key", String},
		},
		{
			// Idempotency-Keys of create requests, kept 24 hours.
			ID: Idempotency, EnvVar: "IDEMPOTENCY_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"idempotency_key", String},
			TTLAttr: "expires_at",
		},
		{
			// Subscribers' endpoints; an account's are one query.
			ID: WebhookEndpoints, EnvVar: "WEBHOOK_ENDPOINTS_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"endpoint_id", Number},
		},
		{
			// One item per attempt, kept 90 days (expires_at). Every index is
			// sorted by created_key, "<created_at>#<delivery id>", so each
			// filter lists in time order; its partition key is the filter: the
			// account, or "<account_id>#<endpoint id>", "#<review id>",
			// "#<status>". Only operators list deliveries, so eventually
			// consistent is enough, and the indexes keep whole items.
			ID: WebhookDeliveries, EnvVar: "WEBHOOK_DELIVERIES_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"delivery_id", String},
			Indexes: []Index{
				{Name: DeliveriesByCreated, PartitionKey: accountID(), SortKey: createdKey(), Projection: ProjectAll},
				{Name: DeliveriesByEndpoint, PartitionKey: Attr{"endpoint_key", String}, SortKey: createdKey(), Projection: ProjectAll},
				{Name: DeliveriesByReview, PartitionKey: Attr{"review_key", String}, SortKey: createdKey(), Projection: ProjectAll},
				{Name: DeliveriesByStatus, PartitionKey: Attr{"status_key", String}, SortKey: createdKey(), Projection: ProjectAll},
			},
			TTLAttr: "expires_at",
		},
		{
			// The settings area's sign-in links and sessions (kind "link" or
			// "session"), by the SHA-256 of their token: like api_keys, the key
			// is how the account is found, so it does not start with the
			// account id. A link stays a day past its end, used or not, so
			// opening it again says what became of it; a session goes at its
			// absolute end (expires_at). Reads check the times themselves:
			// DynamoDB removes expired items only eventually.
			ID: PortalTokens, EnvVar: "PORTAL_TOKENS_TABLE",
			PartitionKey: Attr{"token_hash", String},
			TTLAttr:      "expires_at",
		},
		{
			// The provider's raw answer of each check, as received (body,
			// SHA-256, size, request without credentials, time, HTTP status),
			// keyed like the check. Kept while the relationship lasts, then
			// as long as its country's rule says (expires_at, set when it
			// ends: retention.go). Encrypted with a customer-managed key of
			// its own.
			ID: Evidence, EnvVar: "EVIDENCE_TABLE",
			PartitionKey: accountID(), SortKey: &Attr{"check_id", Number},
			TTLAttr:     "expires_at",
			CustomerKey: true,
			// Feeds audit-export, as the audit table's.
			Stream: NewAndOldImages,
		},
		{
			// webhook-ids of provider webhooks already applied ("<provider>#<id>").
			ID: InboundWebhooks, EnvVar: "INBOUND_WEBHOOKS_TABLE",
			PartitionKey: Attr{"receipt_id", String},
			TTLAttr:      "expires_at",
		},
	}
}

// Names maps logical table ids to physical table names.
type Names map[string]string

// NamesWithPrefix names every table prefix+id, as the local stack and the
// integration tests do.
func NamesWithPrefix(prefix string) Names {
	n := Names{}
	for _, t := range Tables() {
		n[t.ID] = prefix + t.ID
	}
	return n
}

// NamesFromEnv reads the names of the tables ids from their environment
// variables (getenv is os.Getenv in a Lambda). A function names only the
// tables it uses, as its IAM role allows only those. A missing variable is an
// error, reported at init.
func NamesFromEnv(getenv func(string) string, ids ...string) (Names, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	byID := map[string]Table{}
	for _, t := range Tables() {
		byID[t.ID] = t
	}
	n := Names{}
	var missing []string
	for _, id := range ids {
		t, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("schema: unknown table %q", id)
		}
		v := getenv(t.EnvVar)
		if v == "" {
			missing = append(missing, t.EnvVar)
			continue
		}
		n[id] = v
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("schema: table names missing from the environment: %s", strings.Join(missing, ", "))
	}
	return n, nil
}

// Lookup returns the definition of the table id.
func Lookup(id string) (Table, bool) {
	for _, t := range Tables() {
		if t.ID == id {
			return t, true
		}
	}
	return Table{}, false
}

// TableByID returns the definition of the table id, or an error naming it.
func TableByID(id string) (Table, error) {
	if t, ok := Lookup(id); ok {
		return t, nil
	}
	return Table{}, fmt.Errorf("schema: unknown table %q", id)
}

// MustTable is TableByID for initialization: a miss panics rather than
// become a zero Table with no name and no environment variable.
func MustTable(id string) Table {
	t, err := TableByID(id)
	if err != nil {
		panic(err.Error())
	}
	return t
}

// unnamedPrefix starts the name a store gives a table its environment does
// not name: no table is named so, and no role is granted it.
const unnamedPrefix = "unnamed-in-this-environment."

// UnnamedTable is the name a store uses for the table id its environment
// does not name, so that the call fails naming the table.
func UnnamedTable(id string) string { return unnamedPrefix + id }

// IsUnnamed tells an UnnamedTable name, and the table it stands for.
func IsUnnamed(name string) (id string, ok bool) { return strings.CutPrefix(name, unnamedPrefix) }
