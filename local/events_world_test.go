package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/store"
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
	// sampleSettingsURL is the admin function's SETTINGS_BASE_URL in the
	// replays: events/admin-portal.json's link starts with it.
	sampleSettingsURL = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/dev"
	// sampleUnknownLink is the sign-in link token events/web.json
	// opens: well-formed ("evs_portal_" and 43 base64url characters, 32
	// bytes), never minted.
	sampleUnknownLink = "evs_portal_ZXZzLXNhbXBsZS1ldmVudC11bmtub3duLWxpbmstMDE"
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
	// Account 1's first of each (domain.ScopedID).
	if first := domain.ScopedID(acct, 1); created.Entity.ID != first || created.Checks[0].ID != first || created.Reviews[0].ID != first {
		t.Fatalf("entity %d, check %d, review %d: the sample events name %d for each", created.Entity.ID, created.Checks[0].ID, created.Reviews[0].ID, first)
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
	// The sample decisions (events/decision) are declared, as an execution
	// typed in the AWS console is: the sample account accepts them.
	if err := st.PutAccountSettings(ctx, acct, domain.AccountSettings{ReviewIntervalDays: 365, DeclaredDecisions: true}); err != nil {
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

// sid is the id of account 1's n-th entity, check or review, which the
// sample events name (domain.ScopedID).
func sid(n int64) int64 { return domain.ScopedID(1, n) }

// sampleEndpointSecret signs the deliveries to sample endpoint 1.
const sampleEndpointSecret = "evs_whsk_73616d706c652d656e64706f696e742d736563726574"

// sampleDelivery is the delivery events/review-events.json makes and
// events/webhook-delivery.json carries: review 1 approved, for endpoint 1.
const sampleDelivery = "dlv_68d0f015f3e46af2405938402302d48d"

// sampleDeps are what the sample events' functions reach besides the
// tables: the provider simulator, the deliveries queue and a subscriber.
type sampleDeps struct {
	simURL   string
	sqs      *sqs.Client
	queues   map[string]string
	receiver *testReceiver
	// records is the records bucket's stand-in audit-export and admin use
	// in-process; s3Endpoint the S3 server of the emulated functions.
	records    records.Dir
	s3Endpoint string
}

func newSampleDeps(t *testing.T) *sampleDeps {
	t.Helper()
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()})
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
	return &sampleDeps{simURL: simSrv.URL, sqs: client, queues: queues, receiver: newTestReceiver(t, sampleEndpointSecret),
		records: records.Dir{Root: t.TempDir()}}
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

// sampleAuthorizerContext is what the authorizer answers for sampleKey, and
// what the API events carry in requestContext.authorizer.
func sampleAuthorizerContext() map[string]any {
	return auth.Principal{AccountID: 1, KeyPrefix: sampleKey[:10], Permissions: samplePermissions}.AuthorizerContext()
}
