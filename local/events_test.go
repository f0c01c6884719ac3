package main

// Replays the sample events of events/ through the functions' Lambda
// handlers, built as functions/<name>/main.go builds them, over DynamoDB
// Local. The events are what API Gateway sends a function after the
// authorizer (REST API, payload 1.0) and what it sends the authorizer; they
// name a fixed world that seedSampleWorld creates on fresh tables:
//
//   - account 1 (Saudi Arabia enabled with its default configuration, as
//     `go run ./local account create` does), holding the API key sampleKey
//     with every permission;
//   - entity 1 ("Al Waha Supplies"), its initial review 1 and its screening
//     check 1 (reference evs-1-1), still waiting for the provider's answer.
//
// events/provider-webhook.json is signed with sampleWebhookSecret (make
// local's default webhook secret) at its webhook-timestamp
// (2026-11-20T12:00:05Z): it verifies only with that secret and a clock
// within 5 minutes of that time, which the replay sets (the runtime-emulator
// test re-signs it at the current time instead).
// events/create-entity.json creates entity 2, its providers played by the
// simulator (registration number ending in 0: active and clear).
// events/admin-*.json are command documents of the admin function, one per
// command family, reading account 1 after the other events ran;
// events/admin-refused.json names an account that does not exist and is
// refused (NotFound).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

const (
	// sampleKey is the API key of the sample events: "evs_" and 43
	// base64url characters (32 bytes), stored for account 1 by its hash.
	sampleKey = "evs_ZXZzLXNhbXBsZS1ldmVudC1rZXktMDAwMDAwMDAwMSE"
	// sampleWebhookSecret signs events/provider-webhook.json: make local's
	// default webhook secret (localWebhookSecret without EVS_WEBHOOK_SECRET),
	// written out so that no environment changes it.
	sampleWebhookSecret = "whsec_ZXZzLWxvY2FsLXdlYmhvb2stc2VjcmV0LTAwMDE="
	// sampleAPIArn is the API (region, account, id, stage) of the sample events.
	sampleAPIArn = "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/dev"
	sampleStage  = "dev"
)

// samplePermissions are the sample key's permissions, sorted, as the store
// keeps them and the events' authorizer context lists them.
var samplePermissions = []string{domain.PermEntityCreate, domain.PermReviewView, domain.PermEntityView}

// seedSampleWorld creates what the sample events name, on fresh tables (ids
// start at 1 there).
func seedSampleWorld(t *testing.T, st *store.Store, receiverURL string) {
	t.Helper()
	ctx := context.Background()
	e := &env{store: st, log: quietLogger()}
	acct := mustAccount(t, e, "Sample Events", "SA")
	if acct != 1 {
		t.Fatalf("account id = %d, want 1: the sample events name account 1 (are the tables fresh?)", acct)
	}
	if !auth.WellFormed(sampleKey) {
		t.Fatalf("sampleKey %q is not a well-formed key", sampleKey)
	}
	now := domain.Now()
	// With its id, as every issued key has one: events/admin-key.json lists it.
	if err := st.PutAPIKey(ctx, domain.APIKey{
		ID: auth.KeyID(auth.HashKey(sampleKey)), Hash: auth.HashKey(sampleKey), Prefix: sampleKey[:10], AccountID: acct,
		Permissions: samplePermissions, CreatedAt: now,
	}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)
	created, err := st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{
			AccountID: acct, RegistrationNumber: "7001111110", LegalName: "Al Waha Supplies",
			CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview,
			RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsNotRun,
			CreatedAt: at, UpdatedAt: at,
		},
		// The screening whose answer events/provider-webhook.json brings.
		Checks: []domain.Check{{
			Type: domain.CheckOrganizationScreening, ProviderKey: checks.ProviderOpenSanctions,
			Status: domain.CheckPending, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{}, CreatedAt: at, UpdatedAt: at,
		}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.Entity.ID != 1 || created.Checks[0].ID != 1 || created.Reviews[0].ID != 1 {
		t.Fatalf("entity %d, check %d, review %d: the sample events name 1, 1 and 1", created.Entity.ID, created.Checks[0].ID, created.Reviews[0].ID)
	}
	// The decision events act as operator 1 and assign to operator 2; the
	// account reviews its monitored entities yearly, without four eyes.
	for i, op := range []struct {
		name  string
		perms []string
	}{
		{"Sara Al-Harbi", domain.OperatorPermissions()},
		{"Omar Al-Qahtani", []string{domain.PermReviewDecide}},
	} {
		o, err := st.CreateOperator(ctx, acct, op.name, op.perms, now)
		if err != nil {
			t.Fatal(err)
		}
		if o.ID != int64(i+1) {
			t.Fatalf("operator %q is %d, want %d: the decision events name operators 1 and 2", op.name, o.ID, i+1)
		}
	}
	if err := st.PutAccountSettings(ctx, acct, domain.AccountSettings{ReviewIntervalDays: 365}); err != nil {
		t.Fatal(err)
	}
	// Endpoint 1 receives approvals at the replay's receiver, signed with
	// sampleEndpointSecret.
	// It existed before the sample events happened (November 2026):
	// endpoints get no events from before their time.
	epCreated := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	ep, err := st.CreateEndpoint(ctx, domain.Endpoint{
		AccountID: acct, URL: receiverURL, Events: []domain.EventType{domain.EventApproved}, Active: true,
		Secret: sampleEndpointSecret, CreatedAt: epCreated, UpdatedAt: epCreated,
	}, domain.AuditRecord{AccountID: acct, ActionID: "sample-endpoint", Action: domain.ActionEndpointCreate, OperatorName: "sample", At: now})
	if err != nil || ep.ID != 1 {
		t.Fatalf("endpoint %d, %v: the sample events name endpoint 1", ep.ID, err)
	}
}

// sampleEndpointSecret signs the deliveries to sample endpoint 1.
const sampleEndpointSecret = "evs_whsk_73616d706c652d656e64706f696e742d736563726574"

// sampleDelivery is the delivery events/review-events.json makes and
// events/webhook-delivery.json carries: review 1 approved, for endpoint 1.
const sampleDelivery = "dlv_f8693450d8efa13b8d16b25354baf31b"

// sampleDeps are what the sample events' functions reach besides the
// tables: the provider simulator, the deliveries queue and a subscriber.
type sampleDeps struct {
	simURL   string
	sqs      *sqs.Client
	queues   map[string]string
	receiver *testReceiver
}

func newSampleDeps(t *testing.T) *sampleDeps {
	t.Helper()
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey})
	t.Cleanup(simSrv.Close)
	client := pipeline.SQSClient(devstack.SQSEndpoint())
	queues, err := pipeline.EnsureQueues(context.Background(), client, devstack.UniquePrefix(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, url := range queues {
			client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
		}
	})
	return &sampleDeps{simURL: simSrv.URL, sqs: client, queues: queues, receiver: newTestReceiver(t, sampleEndpointSecret)}
}

// queued receives what the deliveries queue holds now.
func (d *sampleDeps) queued(t *testing.T) []delivery.Message {
	t.Helper()
	out, err := d.sqs.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(d.queues[deploy.QueueDeliveries]), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []delivery.Message
	for _, m := range out.Messages {
		var msg delivery.Message
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &msg); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// sampleEventsDir is events/ at the repository root.
func sampleEventsDir(t testing.TB) string {
	t.Helper()
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "events")
}

// sampleEventFiles lists events/*.json.
func sampleEventFiles(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(sampleEventsDir(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	sort.Strings(out)
	return out
}

func readSampleEvent(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleEventsDir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// functionOfEvent is the function an event file is for: its name starts
// with the function's directory name (the longest that fits, so
// get-entity-markdown.json is get-entity's).
func functionOfEvent(file string) (deploy.Function, bool) {
	var best deploy.Function
	for _, f := range deploy.Functions() {
		if strings.HasPrefix(file, f.Name) && len(f.Name) > len(best.Name) {
			best = f
		}
	}
	return best, best.Name != ""
}

// sampleEvent is one event file and what its function answers.
type sampleEvent struct {
	file string
	// API functions: the status, and more checks of the response.
	status int
	check  func(t *testing.T, r events.APIGatewayProxyResponse)
	// The authorizer: checks of its answer.
	authz func(t *testing.T, r events.APIGatewayCustomAuthorizerResponse)
	// Other functions (decision, periodic-reviews, admin): checks of the
	// handler's JSON answer, with the store to look behind it.
	result func(t *testing.T, out []byte, st *store.Store)
	// A refused event: the named failure the function answers instead.
	refused *sampleRefusal
}

// sampleRefusal is a named failure as Lambda reports it to the caller of
// the Invoke API: errorType and errorMessage.
type sampleRefusal struct {
	errorType, message string
}

// check compares a refusal with the one wanted.
func (want sampleRefusal) check(t *testing.T, errorType, message string) {
	t.Helper()
	if errorType != want.errorType || message != want.message {
		t.Errorf("refused with %s %q, want %s %q", errorType, message, want.errorType, want.message)
	}
}

// checkErr checks an in-process handler's error: the named failure the
// runtime would report (a messages.InvokeResponse_Error).
func (want sampleRefusal) checkErr(t *testing.T, err error) {
	t.Helper()
	var ie messages.InvokeResponse_Error
	if !errors.As(err, &ie) {
		t.Fatalf("answer %v, want the refusal %s %q", err, want.errorType, want.message)
	}
	want.check(t, ie.Type, ie.Message)
}

// sampleEvents lists every event file, in the order the replay runs them:
// reads first, then the create (entity 2), then the webhook, then operator
// decisions on review 1 (entity 1) up to its approval, a periodic review of
// entity 1 (review 3) opened and rejected, review 2 cancelled, the
// scheduled periodic-review run, the approval's webhook queued and
// delivered, and last the admin function's reads of what all that left.
func sampleEvents() []sampleEvent {
	return []sampleEvent{
		{file: "authorizer.json", authz: func(t *testing.T, r events.APIGatewayCustomAuthorizerResponse) {
			st := r.PolicyDocument.Statement
			if len(st) != 1 || st[0].Effect != "Allow" || !slices.Equal(st[0].Resource, []string{sampleAPIArn + "/*"}) {
				t.Errorf("policy = %+v, want Allow on %s/*", r.PolicyDocument, sampleAPIArn)
			}
			if r.PrincipalID != sampleKey[:10] {
				t.Errorf("principalId = %q", r.PrincipalID)
			}
			want := sampleAuthorizerContext()
			for k, v := range want {
				if r.Context[k] != v {
					t.Errorf("context %s = %v, want %v", k, r.Context[k], v)
				}
			}
		}},
		{file: "list-entities.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if got := proxyHeader(r, "X-Total-Count"); got != "1" {
				t.Errorf("X-Total-Count = %q, want 1", got)
			}
			m := proxyJSON(t, r)
			ents, _ := m["entities"].([]any)
			if len(ents) != 1 || ents[0].(map[string]any)["id"] != float64(1) {
				t.Errorf("entities = %v, want entity 1", m["entities"])
			}
			if meta, _ := m["meta"].(map[string]any); meta["page"] != float64(1) || meta["per_page"] != float64(25) || meta["total_count"] != float64(1) {
				t.Errorf("meta = %v", m["meta"])
			}
		}},
		{file: "get-entity.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			m := proxyJSON(t, r)
			if m["id"] != float64(1) || m["legal_name"] != "Al Waha Supplies" {
				t.Errorf("entity = %v %v, want 1 Al Waha Supplies", m["id"], m["legal_name"])
			}
			wantIDs(t, "checks", m["checks"], 1)
			wantIDs(t, "reviews", m["reviews"], 1)
		}},
		{file: "get-entity-markdown.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "text/markdown")
			if !strings.HasPrefix(r.Body, "# ") || !strings.Contains(r.Body, "Al Waha Supplies") {
				t.Errorf("markdown = %.200q", r.Body)
			}
		}},
		{file: "get-review.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			er, _ := proxyJSON(t, r)["entity_review"].(map[string]any)
			ent, _ := er["entity"].(map[string]any)
			if er["id"] != float64(1) || ent["id"] != float64(1) || er["checks_count"] != float64(1) {
				t.Errorf("entity_review = %v", er)
			}
		}},
		{file: "create-entity.json", status: http.StatusCreated, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if got := proxyHeader(r, "Location"); got != "/api/v1/entities/2" {
				t.Errorf("Location = %q, want /api/v1/entities/2", got)
			}
			m := proxyJSON(t, r)
			if m["id"] != float64(2) || m["registration_number"] != "7001234560" ||
				m["registration_status"] != string(domain.RegistrationValid) || m["sanctions_status"] != string(domain.SanctionsClear) {
				t.Errorf("created = %v %v %v %v", m["id"], m["registration_number"], m["registration_status"], m["sanctions_status"])
			}
			// Check ids 2 and 3: 1 is entity 1's screening.
			wantIDs(t, "checks", m["checks"], 3, 2)
			wantIDs(t, "reviews", m["reviews"], 2)
		}},
		{file: "provider-webhook.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if s := proxyJSON(t, r)["status"]; s != "applied" {
				t.Errorf("status = %v, want applied", s)
			}
		}},
		decisionEvent("decision-assign.json", 1, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "open" || r.AssignedUserID == nil || *r.AssignedUserID != 2 || aws.ToString(r.AssignedUserName) != "Omar Al-Qahtani" {
				t.Errorf("review = %s assigned to %v %v, want open and operator 2", r.Status, r.AssignedUserID, r.AssignedUserName)
			}
		}),
		decisionEvent("decision-start.json", 1, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "in_progress" || r.StartedAt == nil {
				t.Errorf("review = %s started %v, want in_progress", r.Status, r.StartedAt)
			}
		}),
		decisionEvent("decision-adjudicate-match.json", 1, func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if e.SanctionsStatus != domain.SanctionsClear || !slices.Equal(e.DismissedMatches, []string{"NK-sample-hit"}) {
				t.Errorf("entity sanctions %s, dismissed %v: want clear and the sample hit dismissed", e.SanctionsStatus, e.DismissedMatches)
			}
		}),
		decisionEvent("decision-assess-risk.json", 1, func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if e.Risk == nil || e.Risk.Level != domain.RiskMedium || e.Risk.AssessedAt.IsZero() {
				t.Errorf("entity risk = %+v, want medium with its time", e.Risk)
			}
		}),
		decisionEvent("decision-update-profile.json", 1, func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if aws.ToString(e.WebsiteURL) != "https://alwaha.example.sa" || aws.ToString(e.ActivitySummary) != "Wholesale of building materials" {
				t.Errorf("entity website %v, summary %v", e.WebsiteURL, e.ActivitySummary)
			}
		}),
		decisionEvent("decision-queue-checks.json", 1, func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			// The country's two intake checks ran again through the simulator.
			if r.ChecksQueuedAt == nil || r.ChecksCount != 3 || e.ChecksCount != 3 {
				t.Errorf("review checks %d queued %v, entity checks %d: want 3, a time and 3", r.ChecksCount, r.ChecksQueuedAt, e.ChecksCount)
			}
		}),
		decisionEvent("decision-escalate.json", 1, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "escalated" || aws.ToString(r.Escalation) != domain.EscalationSupervisor {
				t.Errorf("review = %s / %v, want escalated to a supervisor", r.Status, r.Escalation)
			}
		}),
		decisionEvent("decision-escalate-to-aml.json", 1, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "escalated" || aws.ToString(r.Escalation) != domain.EscalationAML {
				t.Errorf("review = %s / %v, want escalated to AML", r.Status, r.Escalation)
			}
		}),
		decisionEvent("decision-approve.json", 1, func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.Status != "completed" || aws.ToString(r.Outcome) != domain.OutcomeApproved || r.OutcomeReason == nil || e.Status != domain.EntityApproved {
				t.Errorf("review %s %v %v, entity %s: want completed approved with its reason, entity approved", r.Status, r.Outcome, r.OutcomeReason, e.Status)
			}
		}),
		decisionEvent("decision-open-periodic-review.json", 1, func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.ID != 3 || r.Purpose != string(domain.ReviewPeriodic) || r.Status != "open" || e.Status != domain.EntityUnderMonitoring {
				t.Errorf("review %d %s %s, entity %s: want periodic review 3 open, entity under monitoring", r.ID, r.Purpose, r.Status, e.Status)
			}
		}),
		decisionEvent("decision-start-periodic-review.json", 1, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.ID != 3 || r.Status != "in_progress" {
				t.Errorf("review %d %s, want 3 in_progress", r.ID, r.Status)
			}
		}),
		decisionEvent("decision-reject.json", 1, func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.ID != 3 || aws.ToString(r.Outcome) != domain.OutcomeRejected || e.Status != domain.EntityRejected {
				t.Errorf("review %d %v, entity %s: want review 3 rejected, entity rejected", r.ID, r.Outcome, e.Status)
			}
		}),
		decisionEvent("decision-cancel.json", 2, func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.ID != 2 || r.Status != "cancelled" {
				t.Errorf("review %d %s, want 2 cancelled", r.ID, r.Status)
			}
		}),
		{file: "periodic-reviews.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			var res decisions.RunResult
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("run result %s: %v", out, err)
			}
			// Account 1 reviews yearly; entity 1 is rejected and entity 2
			// was never approved: nothing is due.
			if res.Accounts != 1 || res.Checked != 0 || res.Opened != 0 {
				t.Errorf("run = %+v, want 1 account, nothing due", res)
			}
		}},
		{file: "review-events.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			var r events.DynamoDBEventResponse
			if err := json.Unmarshal(out, &r); err != nil || len(r.BatchItemFailures) != 0 {
				t.Errorf("answer %s (%v), want no batch item failures", out, err)
			}
		}},
		{file: "webhook-delivery.json", result: func(t *testing.T, out []byte, st *store.Store) {
			var r events.SQSEventResponse
			if err := json.Unmarshal(out, &r); err != nil || len(r.BatchItemFailures) != 0 {
				t.Errorf("answer %s (%v), want no batch item failures", out, err)
			}
			d, err := st.Delivery(context.Background(), 1, sampleDelivery)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != domain.DeliveryDelivered || d.ResponseStatus != http.StatusNoContent {
				t.Errorf("delivery %s: %s %d %s, want delivered 204", d.ID, d.Status, d.ResponseStatus, d.Error)
			}
		}},
		adminEvent("admin-account.json", func(t *testing.T, r struct {
			Account admin.AccountView `json:"account"`
		}, _ string) {
			a := r.Account
			if a.ID != 1 || a.Name != "Sample Events" || a.ReviewIntervalDays != 365 || a.FourEyes == nil || len(a.FourEyes) != 0 || a.CreatedAt == "" {
				t.Errorf("account = %+v, want 1 Sample Events, yearly reviews, no four eyes", a)
			}
			if len(a.Countries) != 1 || a.Countries[0].Code != "SA" || a.Countries[0].CountryID != 682 || !a.Countries[0].Active {
				t.Errorf("countries = %+v, want SA (682) active", a.Countries)
			}
		}),
		adminEvent("admin-key.json", func(t *testing.T, r struct {
			Keys []admin.KeyView `json:"api_keys"`
		}, raw string) {
			if len(r.Keys) != 1 {
				t.Fatalf("api_keys = %+v, want the sample key alone", r.Keys)
			}
			k := r.Keys[0]
			if k.ID != auth.KeyID(auth.HashKey(sampleKey)) || k.AccountID != 1 || k.Prefix != sampleKey[:10] || !k.Active || k.RevokedAt != nil ||
				!slices.Equal(sorted(k.Permissions), sorted(samplePermissions)) {
				t.Errorf("key = %+v, want the sample key, active, with its permissions", k)
			}
			// Listed by id and prefix, never in clear or by its hash.
			if strings.Contains(raw, sampleKey) || strings.Contains(raw, auth.HashKey(sampleKey)) {
				t.Errorf("the listing reveals the key or its hash: %s", raw)
			}
		}),
		adminEvent("admin-operator.json", func(t *testing.T, r struct {
			Operators []admin.OperatorView `json:"operators"`
		}, _ string) {
			names := map[int64]string{}
			for _, o := range r.Operators {
				names[o.ID] = o.Name
				if o.AccountID != 1 || !o.Active || len(o.Permissions) == 0 {
					t.Errorf("operator %+v, want account 1's, active, with permissions", o)
				}
			}
			if len(r.Operators) != 2 || names[1] != "Sara Al-Harbi" || names[2] != "Omar Al-Qahtani" {
				t.Errorf("operators = %v, want 1 Sara Al-Harbi and 2 Omar Al-Qahtani", names)
			}
		}),
		adminEvent("admin-endpoint.json", func(t *testing.T, r struct {
			Endpoints []admin.EndpointView `json:"endpoints"`
		}, raw string) {
			if len(r.Endpoints) != 1 {
				t.Fatalf("endpoints = %+v, want endpoint 1 alone", r.Endpoints)
			}
			ep := r.Endpoints[0]
			if ep.ID != 1 || ep.AccountID != 1 || !ep.Active || !slices.Equal(ep.Events, []domain.EventType{domain.EventApproved}) ||
				!strings.HasPrefix(ep.URL, "http://127.0.0.1:") || ep.PreviousSecretExpiresAt != nil {
				t.Errorf("endpoint = %+v, want 1, active, approvals to the local receiver", ep)
			}
			if strings.Contains(raw, sampleEndpointSecret) || strings.Contains(raw, `"secret"`) {
				t.Errorf("the listing reveals the endpoint's secret: %s", raw)
			}
		}),
		adminEvent("admin-delivery.json", func(t *testing.T, r struct {
			Deliveries []admin.DeliveryView `json:"deliveries"`
		}, _ string) {
			// The one delivery the pipeline made, which webhook-delivery posted.
			if len(r.Deliveries) != 1 {
				t.Fatalf("deliveries = %+v, want %s alone", r.Deliveries, sampleDelivery)
			}
			d := r.Deliveries[0]
			if d.ID != sampleDelivery || d.Status != string(domain.DeliveryDelivered) || d.ResponseStatus != http.StatusNoContent ||
				d.EndpointID != 1 || d.EventType != string(domain.EventApproved) || d.ReviewID != 1 || d.Attempt != 1 {
				t.Errorf("delivery = %+v, want %s delivered (204) to endpoint 1 for review 1's approval", d, sampleDelivery)
			}
		}),
		adminEvent("admin-audit.json", func(t *testing.T, r struct {
			Audit []admin.AuditView `json:"audit"`
		}, _ string) {
			byID := map[string]admin.AuditView{}
			for i, a := range r.Audit {
				byID[a.ActionID] = a
				if a.AccountID != 1 {
					t.Errorf("record %s is account %d's", a.ActionID, a.AccountID)
				}
				if i > 0 && a.At > r.Audit[i-1].At {
					t.Errorf("record %s (%s) after %s (%s): want newest first", a.ActionID, a.At, r.Audit[i-1].ActionID, r.Audit[i-1].At)
				}
			}
			// The account's opening, the sample endpoint, an operator's decision.
			var opened bool
			for _, a := range r.Audit {
				opened = opened || (a.Action == domain.ActionAccountCreate && a.Actor == "make local")
			}
			if !opened || byID["sample-endpoint"].Action != domain.ActionEndpointCreate ||
				byID["sample-decision-approve"].Action != domain.ActionApprove || byID["sample-decision-approve"].OperatorID != 1 {
				t.Errorf("audit = %+v, want the account's opening, the sample endpoint and the approval by operator 1", r.Audit)
			}
		}),
		{file: "admin-refused.json", refused: &sampleRefusal{"NotFound", "Account 99 not found."}},
	}
}

// adminEvent is an admin sample event: its answer, decoded into A (strictly:
// the JSON must be an object of A's fields), checked with its raw text.
func adminEvent[A any](file string, check func(t *testing.T, answer A, raw string)) sampleEvent {
	return sampleEvent{file: file, result: func(t *testing.T, out []byte, _ *store.Store) {
		var a A
		dec := json.NewDecoder(strings.NewReader(string(out)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("answer %s: %v", out, err)
		}
		check(t, a, string(out))
	}}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// decisionEvent is a decision sample event: its answer is the review as the
// workflow shows it, checked with the entity it belongs to as stored after.
func decisionEvent(file string, entityID int64, check func(t *testing.T, r decisions.ReviewOut, e domain.Entity)) sampleEvent {
	return sampleEvent{file: file, result: func(t *testing.T, out []byte, st *store.Store) {
		var o decisions.TaskOutput
		if err := json.Unmarshal(out, &o); err != nil || o.Review == nil {
			t.Fatalf("task output %s: %v", out, err)
		}
		e, err := st.Entity(context.Background(), 1, entityID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Review.EntityID != entityID {
			t.Errorf("review %d is entity %d's, want %d's", o.Review.ID, o.Review.EntityID, entityID)
		}
		check(t, *o.Review, e)
	}}
}

// sampleAuthorizerContext is what the authorizer answers for sampleKey, and
// what the API events carry in requestContext.authorizer.
func sampleAuthorizerContext() map[string]any {
	return auth.Principal{AccountID: 1, KeyPrefix: sampleKey[:10], Permissions: samplePermissions}.AuthorizerContext()
}

func proxyHeader(r events.APIGatewayProxyResponse, name string) string {
	if v := http.Header(r.MultiValueHeaders).Get(name); v != "" {
		return v
	}
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func wantContentType(t *testing.T, r events.APIGatewayProxyResponse, prefix string) {
	t.Helper()
	if ct := proxyHeader(r, "Content-Type"); !strings.HasPrefix(ct, prefix) {
		t.Errorf("Content-Type = %q, want %s", ct, prefix)
	}
}

func proxyJSON(t *testing.T, r events.APIGatewayProxyResponse) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("body is not JSON (%v): %.300s", err, r.Body)
	}
	return m
}

// wantIDs checks the ids of a JSON array of objects, in order.
func wantIDs(t *testing.T, what string, v any, ids ...int64) {
	t.Helper()
	arr, _ := v.([]any)
	var got []int64
	for _, x := range arr {
		id, _ := x.(map[string]any)["id"].(float64)
		got = append(got, int64(id))
	}
	if !slices.Equal(got, ids) {
		t.Errorf("%s ids = %v, want %v", what, got, ids)
	}
}

// checkSampleEventShape holds an API event to what API Gateway sends for its
// function's route on the "dev" stage, after the authorizer.
func checkSampleEventShape(t *testing.T, f deploy.Function, ev events.APIGatewayProxyRequest) {
	t.Helper()
	route, ok := f.Route()
	if !ok {
		t.Fatalf("%s serves no route", f.Name)
	}
	rc := ev.RequestContext
	if ev.Resource != route.Path || rc.ResourcePath != route.Path || ev.HTTPMethod != route.Method || rc.HTTPMethod != route.Method {
		t.Errorf("event is %s %s (%s %s), want the route %s %s", ev.HTTPMethod, ev.Resource, rc.HTTPMethod, rc.ResourcePath, route.Method, route.Path)
	}
	if params, ok := deploy.MatchPath(route.Path, ev.Path); !ok || !mapsEqual(params, ev.PathParameters) {
		t.Errorf("path %s and pathParameters %v do not match %s", ev.Path, ev.PathParameters, route.Path)
	}
	if rc.Stage != sampleStage || rc.Path != "/"+sampleStage+ev.Path {
		t.Errorf("stage %q and requestContext.path %q, want %q and /%s%s", rc.Stage, rc.Path, sampleStage, sampleStage, ev.Path)
	}
	if ev.Headers["Host"] == "" || ev.Headers["X-Forwarded-Proto"] != "https" || len(ev.MultiValueHeaders) != len(ev.Headers) {
		t.Errorf("headers %v / %v: want Host, X-Forwarded-Proto https and every header in multiValueHeaders", ev.Headers, ev.MultiValueHeaders)
	}
	switch {
	case route.Public && rc.Authorizer != nil:
		t.Errorf("a public route's event carries an authorizer context: %v", rc.Authorizer)
	case !route.Public:
		if rc.Authorizer["principalId"] != sampleKey[:10] {
			t.Errorf("authorizer principalId = %v", rc.Authorizer["principalId"])
		}
		for k, v := range sampleAuthorizerContext() {
			if rc.Authorizer[k] != v {
				t.Errorf("authorizer %s = %v, want %v (what the authorizer answers for the sample key)", k, rc.Authorizer[k], v)
			}
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

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
	}
	return nil, fmt.Errorf("no invoker for a handler of type %T", h)
}

// sampleHandlers builds every function's Lambda handler by boot's table, as
// its functions/<name>/main.go does, with the providers played by the
// simulator at simURL, the deliveries queue and the allow list of rieEnv
// (loopback), and the webhook checked at the clock now.
func sampleHandlers(st *store.Store, deps *sampleDeps, now func() time.Time) (map[string]sampleInvoker, error) {
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
		Store: st, Log: quietLogger(), Clock: domain.SystemClock, Intake: runner,
		Readers:        map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{Client: client}},
		WebhookSecrets: map[string][]webhooks.Secret{checks.ProviderOpenSanctions: secrets},
		Deliveries:     &delivery.SQSQueue{Client: deps.sqs, URL: deps.queues[deploy.QueueDeliveries]},
		Allow:          loopback,
	}
	out := map[string]sampleInvoker{}
	for _, f := range deploy.Functions() {
		fd := d
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

// webhookTime is the webhook-timestamp of a webhook event.
func webhookTime(t testing.TB, raw []byte) time.Time {
	t.Helper()
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ts, err := strconv.ParseInt(ev.Headers[webhooks.HeaderTimestamp], 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q: %v", ev.Headers[webhooks.HeaderTimestamp], err)
	}
	return time.Unix(ts, 0)
}

// TestSampleEvents replays every sample event through its function's
// handler and checks the answer; the webhook is replayed twice (applied,
// then duplicate); after the refused admin event, more documents the admin
// function must refuse (adminRefusals).
func TestSampleEvents(t *testing.T) {
	cases := sampleEvents()

	// Every event file has a case and a function, every function an event
	// (the house rule: `ls events | grep <function>`).
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.file] = true
	}
	hasEvent := map[string]bool{}
	for _, file := range sampleEventFiles(t) {
		f, ok := functionOfEvent(file)
		if !ok {
			t.Errorf("events/%s: its name starts with no function's name", file)
		}
		hasEvent[f.Name] = true
		if !covered[file] {
			t.Errorf("events/%s is not replayed: add it to sampleEvents", file)
		}
	}
	for _, f := range deploy.Functions() {
		if !hasEvent[f.Name] {
			t.Errorf("function %s has no sample event in events/", f.Name)
		}
	}

	if os.Getenv("EVS_WEBHOOK_SECRET") == "" && localWebhookSecret() != sampleWebhookSecret {
		t.Errorf("sampleWebhookSecret is no longer make local's default webhook secret %s", localWebhookSecret())
	}

	st := devstacktest.Store(t)
	deps := newSampleDeps(t)
	seedSampleWorld(t, st, deps.receiver.url())
	hookAt := webhookTime(t, readSampleEvent(t, "provider-webhook.json"))
	handlers, err := sampleHandlers(st, deps, func() time.Time { return hookAt })
	if err != nil {
		t.Fatal(err)
	}

	invoke := func(t *testing.T, c sampleEvent) any {
		t.Helper()
		f, ok := functionOfEvent(c.file)
		if !ok {
			t.Fatalf("no function for %s", c.file)
		}
		raw := readSampleEvent(t, c.file)
		if _, api := f.Route(); api {
			var ev events.APIGatewayProxyRequest
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			checkSampleEventShape(t, f, ev)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(f.TimeoutSeconds)*time.Second)
		defer cancel()
		ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "replay-" + c.file})
		out, err := handlers[f.Name](ctx, raw)
		if c.refused != nil {
			return err // check reads the refusal
		}
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		return out
	}
	check := func(t *testing.T, c sampleEvent, out any) {
		t.Helper()
		switch {
		case c.refused != nil:
			err, _ := out.(error)
			c.refused.checkErr(t, err)
			return
		case c.authz != nil:
			c.authz(t, out.(events.APIGatewayCustomAuthorizerResponse))
			return
		case c.result != nil:
			c.result(t, out.([]byte), st)
			return
		}
		r := out.(events.APIGatewayProxyResponse)
		if r.StatusCode != c.status {
			t.Fatalf("status = %d, want %d: %.300s", r.StatusCode, c.status, r.Body)
		}
		c.check(t, r)
	}

	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.file, ".json"), func(t *testing.T) {
			check(t, c, invoke(t, c))
		})
		if c.file == "review-events.json" {
			t.Run("review-events queued the sample delivery", func(t *testing.T) {
				msgs := deps.queued(t)
				if len(msgs) != 1 || msgs[0].DeliveryID != sampleDelivery || msgs[0].EndpointID != 1 || msgs[0].Event.EventType != domain.EventApproved {
					t.Errorf("queued %+v, want %s for endpoint 1 (what events/webhook-delivery.json carries)", msgs, sampleDelivery)
				}
			})
		}
		if c.file == "provider-webhook.json" {
			// Before the decisions change what it applied.
			webhookFollowUps(t, st, deps, hookAt, invoke)
		}
		if c.file == "admin-refused.json" {
			adminRefusals(t, st, handlers["admin"])
		}
	}
}

// adminRefusals sends the admin handler documents it must refuse, each
// naming its failure and the field or record at fault, and checks that the
// refused changes wrote nothing.
func adminRefusals(t *testing.T, st *store.Store, h sampleInvoker) {
	t.Run("admin refusals", func(t *testing.T) {
		ctx := context.Background()
		keysBefore, err := st.APIKeys(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		auditBefore, err := st.AccountAudit(ctx, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name, doc string
			want      sampleRefusal
		}{
			{"not an object", `[1, 2]`,
				sampleRefusal{"InvalidRequest", `command the document must be a JSON object such as {"command": "account.list", "actor": "you@example.com"}`}},
			{"no command", `{"actor": "ops@example.com", "account_id": 1}`,
				sampleRefusal{"InvalidRequest", "command is required; one of " + strings.Join(admin.Commands(), ", ")}},
			{"unknown command", `{"command": "account.delete", "actor": "ops@example.com", "account_id": 1}`,
				sampleRefusal{"InvalidRequest", `command "account.delete" is not a command; one of ` + strings.Join(admin.Commands(), ", ")}},
			{"no actor", `{"command": "account.get", "account_id": 1}`,
				sampleRefusal{"InvalidRequest", "actor is required"}},
			{"no account", `{"command": "operator.list", "actor": "ops@example.com"}`,
				sampleRefusal{"InvalidRequest", "account_id is required: a positive account id"}},
			{"account id as text", `{"command": "account.get", "actor": "ops@example.com", "account_id": "1"}`,
				sampleRefusal{"InvalidRequest", "account_id must be a number"}},
			{"unknown field", `{"command": "key.list", "actor": "ops@example.com", "account_id": 1, "key": "evs_x"}`,
				sampleRefusal{"InvalidRequest", "key is not a field of key.list"}},
			{"unknown endpoint", `{"command": "endpoint.get", "actor": "ops@example.com", "account_id": 1, "endpoint_id": 99}`,
				sampleRefusal{"NotFound", "Account 1 has no webhook endpoint 99."}},
			{"change of an unknown operator", `{"command": "operator.update", "actor": "ops@example.com", "account_id": 1, "operator_id": 99, "name": "X"}`,
				sampleRefusal{"NotFound", "Account 1 has no operator 99."}},
			{"key with an unknown permission", `{"command": "key.create", "actor": "ops@example.com", "account_id": 1, "permissions": ["entity.delete"]}`,
				sampleRefusal{"InvalidRequest", `permissions "entity.delete" is not a permission; use ` + strings.Join(domain.APIKeyPermissions(), ", ")}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "refusal-" + strings.ReplaceAll(c.name, " ", "-")})
				out, err := h(ctx, []byte(c.doc))
				if err == nil {
					t.Fatalf("answered %s, want %s", out, c.want.errorType)
				}
				c.want.checkErr(t, err)
			})
		}
		keysAfter, err := st.APIKeys(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		auditAfter, err := st.AccountAudit(ctx, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(keysAfter) != len(keysBefore) || len(auditAfter) != len(auditBefore) {
			t.Errorf("refusals wrote: %d keys then %d, %d audit records then %d", len(keysBefore), len(keysAfter), len(auditBefore), len(auditAfter))
		}
	})
}

// webhookFollowUps replays the provider webhook (a duplicate) and sends it
// too late (refused).
func webhookFollowUps(t *testing.T, st *store.Store, deps *sampleDeps, hookAt time.Time, invoke func(t *testing.T, c sampleEvent) any) {
	t.Run("provider-webhook replayed", func(t *testing.T) {
		r := invoke(t, sampleEvent{file: "provider-webhook.json"}).(events.APIGatewayProxyResponse)
		if r.StatusCode != http.StatusOK || proxyJSON(t, r)["status"] != "duplicate" {
			t.Errorf("replay = %d %s, want 200 duplicate", r.StatusCode, r.Body)
		}
		// Applied once: check 1 completed, entity 1 screened as a hit.
		ctx := context.Background()
		c, err := st.Check(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		e, err := st.Entity(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != domain.CheckCompleted || e.SanctionsStatus != domain.SanctionsHit {
			t.Errorf("check 1 %s, entity 1 %s: want completed and hit", c.Status, e.SanctionsStatus)
		}
	})

	t.Run("provider-webhook outside the tolerance", func(t *testing.T) {
		// The same signed event an hour later is refused: the signature
		// holds only near its timestamp.
		late, err := sampleHandlers(st, deps, func() time.Time { return hookAt.Add(time.Hour) })
		if err != nil {
			t.Fatal(err)
		}
		out, err := late["provider-webhook"](context.Background(), readSampleEvent(t, "provider-webhook.json"))
		if err != nil {
			t.Fatal(err)
		}
		if r := out.(events.APIGatewayProxyResponse); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("late webhook = %d %s, want 401", r.StatusCode, r.Body)
		}
	})
}
