package deploy

import (
	"github.com/evs-kyb/evs/shared/schema"
)

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

// Provider settings and secrets (issue: create entity) are functions, so no
// caller can change the catalogue.

func settingWathqURL() Setting {
	return Setting{EnvVar: "WATHQ_BASE_URL", Parameter: "WathqBaseUrl", Default: "https://api.wathq.sa",
		Description: "Base URL of the Wathq commercial-registration API (WATHQ_BASE_URL)."}
}

// settingWathqAPI: which Wathq API generation the stage subscribes to (the
// two are not interchangeable: shared/checks/wathq.go).
func settingWathqAPI() Setting {
	return Setting{EnvVar: "WATHQ_API", Parameter: "WathqApi", Default: "commercial-registration",
		Description: "Wathq API generation (WATHQ_API): commercial-registration (the newer API), or v4 or v5 (the legacy commercialregistration API)."}
}

func settingYenteURL() Setting {
	return Setting{EnvVar: "YENTE_BASE_URL", Parameter: "YenteBaseUrl", Default: "https://api.opensanctions.org",
		Description: "Base URL of the OpenSanctions yente matching API (YENTE_BASE_URL)."}
}

func settingDataset() Setting {
	return Setting{EnvVar: "YENTE_DATASET", Parameter: "YenteDataset", Default: "default",
		Description: "yente dataset screened against (YENTE_DATASET)."}
}

// settingAlgorithm: yente's scoring algorithm, recorded with every check
// (scores of two algorithms are not comparable: see shared/checks/README).
func settingAlgorithm() Setting {
	return Setting{EnvVar: "YENTE_ALGORITHM", Parameter: "YenteAlgorithm", Default: "logic-v2",
		Description: "yente scoring algorithm (YENTE_ALGORITHM): logic-v2, yente 5's default and recommended one; recorded on every screening check."}
}

func settingThreshold() Setting {
	return Setting{EnvVar: "YENTE_THRESHOLD", Parameter: "YenteThreshold", Default: "0.7",
		Description: "Score at or above which a yente result is a match (YENTE_THRESHOLD)."}
}

// settingWebhookAllow: networks webhook deliveries may reach although private
// or loopback (CIDRs): none in AWS; make local permits loopback receivers.
// settingPasskeyRPID and settingPasskeyOrigins: the relying party the
// operators' passkeys are bound to, the console's domain, named once per
// stage. Passkeys registered under one domain sign for it alone: moving the
// console to another domain means enrolling again. Unset, no signature is
// accepted (accounts that accept declared decisions still decide).
func settingPasskeyRPID() Setting {
	return Setting{EnvVar: "PASSKEY_RP_ID", Parameter: "PasskeyRpId", Default: "",
		Description: "The console's domain, the WebAuthn relying party id operators' passkeys are bound to (PASSKEY_RP_ID), e.g. console.example.com."}
}

func settingPasskeyOrigins() Setting {
	return Setting{EnvVar: "PASSKEY_ORIGINS", Parameter: "PasskeyOrigins", Default: "",
		Description: "The console's origins (PASSKEY_ORIGINS, comma-separated), e.g. https://console.example.com."}
}

func settingWebhookAllow() Setting {
	return Setting{EnvVar: "WEBHOOK_ALLOWED_NETWORKS", Parameter: "WebhookAllowedNetworks", Default: "",
		Description: "CIDRs (comma-separated) webhook deliveries may reach although private or loopback (WEBHOOK_ALLOWED_NETWORKS); none in AWS."}
}

// settingSettingsURL: where the console and the settings area are served,
// the base of the enrolment links the admin function mints
// (<base>/console/enrol?token=…):
// on a stage its own URL unless a custom domain is given.
func settingSettingsURL() Setting {
	return Setting{EnvVar: "SETTINGS_BASE_URL", Parameter: "SettingsBaseUrl", Default: "", DefaultsToStageURL: true,
		Description: "Base URL of the console and the settings area (SETTINGS_BASE_URL): portal.link's enrolment links start with it. " +
			"Empty: the stage's own URL, https://<api id>.execute-api.<region>.<url suffix>/<stage>; give another for a custom domain."}
}

func secretWathq() Secret {
	return Secret{EnvVar: "WATHQ_API_KEY_SECRET_ARN", SecretID: "WathqApiKey", Holds: "the Wathq API key",
		Description: "Wathq API key (apiKey header) of the create-entity function's registry lookups."}
}

func secretYente() Secret {
	return Secret{EnvVar: "YENTE_API_KEY_SECRET_ARN", SecretID: "YenteApiKey", Holds: "the yente API key",
		Description: "OpenSanctions yente API key (Authorization ApiKey) of the create-entity function's screening."}
}

func secretWebhook() Secret {
	return Secret{EnvVar: "OPENSANCTIONS_WEBHOOK_SECRET_SECRET_ARN", SecretID: "OpenSanctionsWebhookSecret", Holds: "the OpenSanctions webhook secret (whsec_...)",
		Description: "Standard Webhooks secret(s) (whsec_..., comma-separated during a rotation) verifying OpenSanctions screening webhooks."}
}

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
				// The counters; the registration_number filter reads the
				// registration guards.
				{Table: schema.Accounts, Actions: []string{getItem, query}},
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
				// The country's configuration; the registration claim, put
				// and deleted; the commit turn and counters on the account
				// item and the check and review sequences, updated.
				{Table: schema.Accounts, Actions: []string{getItem, putItem, updateItem, deleteItem}},
				{Table: schema.Entities, Actions: []string{getItem, putItem}},
				{Table: schema.Checks, Actions: []string{putItem}},
				// The intake review, put; a large create's later checks are
				// counted on it (update).
				{Table: schema.Reviews, Actions: []string{putItem, updateItem}},
				{Table: schema.Idempotency, Actions: []string{getItem, putItem, updateItem, deleteItem}},
				// The providers' answers, in the create's transaction.
				{Table: schema.Evidence, Actions: []string{putItem}},
			},
			// Answers over 350 KB, written before the transaction.
			Objects:  []ObjectGrant{{Bucket: BucketEvidence, Actions: []string{s3PutObject}}},
			Settings: []Setting{settingWathqURL(), settingWathqAPI(), settingYenteURL(), settingDataset(), settingThreshold(), settingAlgorithm()},
			Secrets:  []Secret{secretWathq(), secretYente()},
		},
		{
			Name: "provider-webhook", LogicalID: "ProviderWebhookFunction",
			Description: "POST /webhooks/{provider}: signed screening results",
			MemoryMB:    256, TimeoutSeconds: 10,
			Grants: []Grant{
				// A later answer for a complete check is a check of its own
				// (put, its id from the account's check sequence), with the
				// changes against the entity's earlier checks (read). A new
				// hit on a customer opens a review: its id from the account's
				// review sequence and the queue's counts moved (update); an
				// answer for an entity whose relationship ended is kept as
				// long as the account's legal holds say (a query of them).
				{Table: schema.Accounts, Actions: []string{updateItem, query}},
				// The entity's reviews (by_entity gives the keys, BatchGetItem
				// the items): one already open takes the hit; else one is
				// opened (put).
				{Table: schema.Reviews, Actions: []string{query, batchGetItem, putItem}, Indexes: true},
				// The opened review's audit record, chained to its head
				// (read first).
				{Table: schema.Audit, Actions: []string{getItem, putItem}},
				{Table: schema.Checks, Actions: []string{getItem, updateItem, putItem, query, batchGetItem}, Indexes: true},
				{Table: schema.Entities, Actions: []string{getItem, updateItem}},
				// A replay is known by its receipt before anything is kept.
				{Table: schema.InboundWebhooks, Actions: []string{getItem, putItem}},
				// The webhook's body, the check's evidence.
				{Table: schema.Evidence, Actions: []string{putItem}},
			},
			Objects:  []ObjectGrant{{Bucket: BucketEvidence, Actions: []string{s3PutObject}}},
			Settings: []Setting{settingDataset(), settingThreshold(), settingAlgorithm()},
			Secrets:  []Secret{secretWebhook()},
		},
		{
			Name: "get-entity", LogicalID: "GetEntityFunction",
			Description: "GET /api/v1/entities/{id} (JSON and Markdown)",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				// The by_entity indexes give the keys, BatchGetItem the items.
				{Table: schema.Entities, Actions: []string{getItem}},
				{Table: schema.Checks, Actions: []string{query, batchGetItem}, Indexes: true},
				{Table: schema.Reviews, Actions: []string{query, batchGetItem}, Indexes: true},
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
			// The OpenAPI document is built into the binary: no table, no
			// setting, no secret, no permission beyond its own logs.
			Name: "api-description", LogicalID: "ApiDescriptionFunction",
			Description: "GET /openapi.yaml: the API's OpenAPI 3.1 description (public)",
			MemoryMB:    128, TimeoutSeconds: 5,
		},
		{
			Name: "decision", LogicalID: "DecisionFunction",
			Description: "Task of the decision state machine: validates and applies operator actions on reviews",
			// queue_checks calls the providers (8 s per check at most).
			MemoryMB: 512, TimeoutSeconds: 30,
			Grants: []Grant{
				// The account, its operators and country configurations; the
				// account's check and review sequences and queue counts; the
				// operators' passkeys (read; a signature's counter moved on in
				// the write it signs); four-eyes decisions waiting (put, read
				// back at Apply, and taken by the decision).
				{Table: schema.Accounts, Actions: []string{getItem, putItem, updateItem, deleteItem}},
				// The signing ceremonies: read, and taken by the decision (a
				// four-eyes maker's by the write that records the wait).
				{Table: schema.PortalTokens, Actions: []string{getItem, deleteItem}},
				{Table: schema.Reviews, Actions: []string{getItem, query, batchGetItem, putItem, updateItem}, Indexes: true},
				{Table: schema.Entities, Actions: []string{getItem, updateItem}},
				{Table: schema.Checks, Actions: []string{query, batchGetItem, putItem}, Indexes: true},
				// Records appended; an entity's records found (by_entity_time)
				// when its relationship ends.
				{Table: schema.Audit, Actions: []string{getItem, query, putItem}, Indexes: true},
				// queue_checks: the providers' answers.
				{Table: schema.Evidence, Actions: []string{putItem}},
				// end_relationship dates every item of the entity: where the
				// role writes nothing else, an UpdateItem of the expiry alone
				// (the audit trail and the evidence stay append-only).
				{Table: schema.Checks, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Checks)},
				{Table: schema.Audit, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Audit)},
				{Table: schema.Evidence, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Evidence)},
			},
			Objects:  []ObjectGrant{{Bucket: BucketEvidence, Actions: []string{s3PutObject}}},
			Settings: []Setting{settingWathqURL(), settingWathqAPI(), settingYenteURL(), settingDataset(), settingThreshold(), settingAlgorithm(), settingPasskeyRPID(), settingPasskeyOrigins()},
			Secrets:  []Secret{secretWathq(), secretYente()},
			// A refused action (IllegalTransition, Conflict, …) fails the
			// task, and the execution, with its name.
			RefusesWithErrors: true,
		},
		{
			Name: "periodic-reviews", LogicalID: "PeriodicReviewsFunction",
			Description: "Daily (EventBridge): opens the periodic reviews that are due",
			MemoryMB:    256, TimeoutSeconds: 300,
			// The "audit head exported" lines it logged while it exported
			// the chains' heads (before audit-export) are kept as long as
			// the evidence (10 years, CloudWatch's 3,653 days): a shorter
			// retention would delete them.
			LogRetentionDays: 3653,
			Grants: []Grant{
				// Every account's settings: a scan, once a day; the
				// account's review sequence. Its queue's counts: read
				// (GetItem), moved with each review opened (UpdateItem),
				// and set once by the recount of an account whose reviews
				// predate the queue (BatchGetItem, PutItem in a
				// transaction; its reviews indexed by UpdateItem, with
				// their entities' names read by BatchGetItem).
				{Table: schema.Accounts, Actions: []string{scan, getItem, batchGetItem, putItem, updateItem}},
				{Table: schema.Entities, Actions: []string{query, batchGetItem, updateItem}},
				{Table: schema.Reviews, Actions: []string{query, batchGetItem, putItem, updateItem}, Indexes: true},
				// Audit records and their chains' heads: a head is read
				// (GetItem) before an append; an account's heads are one
				// query (their key prefix).
				{Table: schema.Audit, Actions: []string{getItem, query, putItem}},
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
			Streams: []StreamSource{{
				Table: schema.Reviews, BatchSize: 100, MaxRetries: 5, MaxRecordAge: 86400,
				OnFailure: QueueReviewEventsFailures,
			}},
		},
		{
			Name: "audit-export", LogicalID: "AuditExportFunction",
			Description: "Audit and evidence streams, and a daily run: every audit record, chain head and evidence body " +
				"into the records bucket under Object Lock, and the day's manifest",
			MemoryMB: 256, TimeoutSeconds: 300,
			// Its log lines (what it locked, each day's manifest) are kept
			// as long as the evidence (10 years, CloudWatch's 3,653 days).
			LogRetentionDays: 3653,
			Grants: []Grant{
				// Chain heads and records by key, and an account's by their
				// key prefix for the daily run: no Scan of the trail.
				{Table: schema.Audit, Actions: []string{getItem, query}},
				// The accounts, listed once a day.
				{Table: schema.Accounts, Actions: []string{scan}},
				// A check's evidence item, by its key.
				{Table: schema.Evidence, Actions: []string{getItem}},
				// How long an entity's locked copies are renewed: the entity
				// (its end of retention), a check (its entity), the
				// account's legal holds (a query of the accounts table), and,
				// for an entity gone, whether the account accepts an unsigned
				// closure record (its settings' item).
				{Table: schema.Entities, Actions: []string{getItem}},
				{Table: schema.Accounts, Actions: []string{query, getItem}},
				// The daily run's catch-up: a moved entity's checks (by_entity,
				// read back), whose evidence it locks if the stream did not.
				{Table: schema.Checks, Actions: []string{getItem, query, batchGetItem}, Indexes: true},
			},
			Objects: []ObjectGrant{
				// An evidence body kept as an object, copied under the lock;
				// deleted once DynamoDB's TTL removed its item (the end of
				// its retention), the removal coming down the stream.
				{Bucket: BucketEvidence, Actions: []string{s3GetObject, s3DeleteObject}},
				// Puts objects, each version locked in compliance mode to the
				// law's date and tagged for the lifecycle at its put (a date
				// and a tag need PutObjectRetention and PutObjectTagging; the
				// bucket's policy refuses another mode or a date past the
				// longest rule's), and renews a record by putting its bytes
				// again; reads and lists what is there, versions too, so a
				// copy is not written twice.
				{Bucket: BucketRecords, Actions: []string{s3PutObject, s3PutObjectRetention, s3PutObjectTagging, s3GetObject, s3GetObjectVersion,
					s3ListBucket, s3ListBucketVersions}},
			},
			// Each stream a mapping of its own; a batch that still fails
			// goes, described, to the one failure queue.
			Streams: []StreamSource{
				{Table: schema.Audit, BatchSize: 100, MaxRetries: 5, MaxRecordAge: 86400, OnFailure: QueueAuditExportFailures},
				{Table: schema.Evidence, BatchSize: 100, MaxRetries: 5, MaxRecordAge: 86400, OnFailure: QueueAuditExportFailures},
			},
			// The relying party of the operators' passkeys: a closure
			// record ends a trail's keeping only when signed with one.
			Settings: []Setting{settingPasskeyRPID(), settingPasskeyOrigins()},
		},
		{
			Name: "webhook-delivery", LogicalID: "WebhookDeliveryFunction",
			Description: "Deliveries queue: claims, signs and posts each webhook once, recording the attempt",
			// A batch's posts run side by side, each within the 10 s delivery timeout.
			MemoryMB: 256, TimeoutSeconds: 60,
			Grants: []Grant{
				{Table: schema.WebhookEndpoints, Actions: []string{getItem}},
				{Table: schema.WebhookDeliveries, Actions: []string{getItem, putItem, updateItem}},
			},
			Settings: []Setting{settingWebhookAllow()},
			Queue:    &QueueSource{Queue: QueueDeliveries, BatchSize: 10},
		},
		{
			Name: "web", LogicalID: "WebFunction",
			Description: "The web pages: the operator console (/console/: passkey sign-in, the queue, dossiers, signed decisions) " +
				"and the settings area (/settings/: webhook endpoints, deliveries, test events, countries), on one shell",
			MemoryMB: 256, TimeoutSeconds: 15,
			Grants: []Grant{
				// Sign-in links (redeemed: updated) and sessions (put,
				// touched, ended); the console's passkey ceremonies (put,
				// read back for a signature, taken: deleted).
				{Table: schema.PortalTokens, Actions: []string{getItem, putItem, updateItem, deleteItem}},
				// Operators, the account and its countries (a redeem or a
				// passkey sign-in checks the operator in its transaction;
				// a country change updates the account and puts its
				// configurations); the operators' passkeys (listed, read,
				// added, a sign-in's or a step-up's counter moved on, one
				// removed in its transaction; a session's read at each
				// request, which ends with it); the queue's counts (their eight shards
				// read in one BatchGetItem, moved by a claim); decisions
				// waiting for a second operator (listed, read, a refused
				// one deleted).
				{Table: schema.Accounts, Actions: []string{getItem, batchGetItem, query, putItem, updateItem, deleteItem, condCheck}},
				// New endpoints' ids.
				{Table: schema.Counters, Actions: []string{updateItem}},
				// Records appended to their chains, whose heads are read
				// first; a claim's record read back when its action id
				// comes again; an entity's trail on its dossier (the
				// by_entity_time index).
				{Table: schema.Audit, Actions: []string{getItem, query, putItem}, Indexes: true},
				// A review page checks its entity's trail against the chain's
				// exports (read only).
				{Table: schema.AuditExports, Actions: []string{query}},
				{Table: schema.WebhookEndpoints, Actions: []string{getItem, query, putItem, deleteItem}},
				{Table: schema.WebhookDeliveries, Actions: []string{getItem, query, putItem, updateItem}, Indexes: true},
				// The console's queue (the by_queue index), a review, an
				// entity's reviews (the by_entity index gives the keys,
				// BatchGetItem the items); a claim updates the review
				// (store.ApplyDecision). Decisions are written by the
				// decision function, which the console starts: no put.
				{Table: schema.Reviews, Actions: []string{getItem, query, batchGetItem, updateItem}, Indexes: true},
				// A dossier's entity; the queue's names and risks (a batch);
				// a claim moves the entity's dossier revision on.
				{Table: schema.Entities, Actions: []string{getItem, batchGetItem, updateItem}},
				// A dossier's checks, as its reviews; one check, its
				// provider's answer shown (the evidence item, read only).
				{Table: schema.Checks, Actions: []string{getItem, query, batchGetItem}, Indexes: true},
				{Table: schema.Evidence, Actions: []string{getItem}},
			},
			// The providers' answers kept as objects (over 350 KB), shown
			// on the console: reads only.
			Objects: []ObjectGrant{{Bucket: BucketEvidence, Actions: []string{s3GetObject}}},
			// The console's passkeys are bound to its domain.
			Settings: []Setting{settingWebhookAllow(), settingPasskeyRPID(), settingPasskeyOrigins()},
			// Redeliveries and test events.
			SendsTo: []string{QueueDeliveries},
			// The console hands each signed decision to the workflow and
			// follows its execution; a second operator answers the
			// approval task.
			Workflow: []string{StatesStartExecution, StatesDescribeExecution, StatesSendTaskSuccess, StatesSendTaskFailure},
		},
		{
			Name: "admin", LogicalID: "AdminFunction",
			Description: "Administration of a stage (Lambda Invoke only, no route): accounts, countries, API keys, operators, webhook endpoints, deliveries, audit and its locked copies, legal holds, enrolment links",
			MemoryMB:    256, TimeoutSeconds: 30,
			Grants: []Grant{
				// Accounts, their countries and operators; account.list scans;
				// passkey.revoke deletes an operator's passkey.
				{Table: schema.Accounts, Actions: []string{getItem, query, scan, putItem, updateItem, deleteItem, condCheck}},
				{Table: schema.APIKeys, Actions: []string{getItem, query, putItem, updateItem}, Indexes: true},
				{Table: schema.Counters, Actions: []string{updateItem}},
				{Table: schema.Audit, Actions: []string{getItem, query, putItem}, Indexes: true},
				// audit.verify reads a chain's latest export.
				{Table: schema.AuditExports, Actions: []string{query}},
				{Table: schema.WebhookEndpoints, Actions: []string{getItem, query, putItem, deleteItem}},
				{Table: schema.WebhookDeliveries, Actions: []string{getItem, query, putItem, updateItem}, Indexes: true},
				// portal.link mints sign-in links (puts only: it never reads
				// a link or a session).
				{Table: schema.PortalTokens, Actions: []string{putItem}},
				// evidence.get: a check's provider answer, and the check, whose
				// result recorded the answer's hash and size too.
				{Table: schema.Evidence, Actions: []string{getItem}},
				{Table: schema.Checks, Actions: []string{getItem, query, batchGetItem}, Indexes: true},
				// An entity named by audit.list, audit.verify or a legal hold.
				{Table: schema.Entities, Actions: []string{getItem}},
				// A legal hold finds the entity's reviews (by_entity) and
				// takes the expiry off every item of the entity, or puts it
				// back: where the role writes nothing else, an UpdateItem of
				// those two attributes alone, so the audit trail and the
				// evidence stay append-only.
				{Table: schema.Reviews, Actions: []string{query}, Indexes: true},
				{Table: schema.Entities, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Entities)},
				{Table: schema.Checks, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Checks)},
				{Table: schema.Reviews, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Reviews)},
				{Table: schema.Audit, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Audit)},
				{Table: schema.Evidence, Actions: []string{updateItem}, Attributes: schema.RetentionAttributes(schema.Evidence)},
			},
			Objects: []ObjectGrant{
				// evidence.get: a body kept as an object (reads only).
				{Bucket: BucketEvidence, Actions: []string{s3GetObject}},
				// Verification against the locked copies (any version);
				// audit.export's daily run now and audit.extend's one-off
				// run (records, manifests, renewals: dated and tagged puts,
				// as audit-export's); legal holds: the one role that may
				// place or lift one. No delete.
				{Bucket: BucketRecords, Actions: []string{s3PutObject, s3PutObjectRetention, s3PutObjectTagging, s3GetObject, s3GetObjectVersion,
					s3ListBucket, s3ListBucketVersions, s3PutObjectLegalHold}},
			},
			Settings: []Setting{settingWebhookAllow(), settingSettingsURL(), settingPasskeyRPID(), settingPasskeyOrigins()},
			// Redeliveries.
			SendsTo: []string{QueueDeliveries},
			// A refused command fails with InvalidRequest, NotFound,
			// Forbidden or Conflict for its caller to read.
			RefusesWithErrors: true,
		},
	}
}
