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
// events/web.json presses Continue on the console's enrolment page
// (the web function serves the console) with a well-formed link no one
// minted: the console reads the portal_tokens table and answers its own 404
// page.
// events/admin-*.json are command documents of the admin function, one per
// command family, reading account 1 after the other events ran
// (events/admin-portal.json mints a sign-in link for operator 1, which the
// replay then redeems); events/admin-refused.json names an account that
// does not exist and is refused (NotFound).

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

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

	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	deps := newSampleDeps(t)
	seedSampleWorld(t, st, deps.receiver.url())
	hookAt := webhookTime(t, readSampleEvent(t, "provider-webhook.json"))
	// Each function over a client of its own, recording what it does.
	recorders := map[string]*actionRecorder{}
	recorded := func(function string) *store.Store {
		r := &actionRecorder{}
		recorders[function] = r
		return store.New(devstack.DB(r.option), names)
	}
	handlers, err := sampleHandlers(recorded, deps, func() time.Time { return hookAt })
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
		if c.file == "web.json" {
			t.Run("settings looked the link up", func(t *testing.T) {
				// The link is well-formed: only the table can say it is unknown.
				if !strings.HasPrefix(sampleUnknownLink, portal.LinkPrefix) || len(sampleUnknownLink) != len(portal.LinkPrefix)+43 {
					t.Errorf("sampleUnknownLink %q is not a well-formed link token", sampleUnknownLink)
				}
				if !strings.Contains(string(readSampleEvent(t, "web.json")), "token="+sampleUnknownLink) {
					t.Error("events/web.json does not open sampleUnknownLink")
				}
				if !recorders["web"].did(tableAction{action: "dynamodb:GetItem", table: names[schema.PortalTokens]}) {
					t.Error("the web function answered without reading the link from portal_tokens")
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
	t.Run("every action taken is granted", func(t *testing.T) { checkGrants(t, names, recorders) })
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
				sampleRefusal{"InvalidRequest", "account_id must be a whole number"}},
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
		c, err := st.Check(ctx, 1, sid(1))
		if err != nil {
			t.Fatal(err)
		}
		e, err := st.Entity(ctx, 1, sid(1))
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
		late, err := sampleHandlers(func(string) *store.Store { return st }, deps, func() time.Time { return hookAt.Add(time.Hour) })
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
