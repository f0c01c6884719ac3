//go:build linux

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/store"
)

// The paths the end-to-end tests walk, run by the built binaries under the
// emulator with their catalogue environment alone: what no sample event
// reaches and what a grant missing from a role breaks on AWS only.
func runRealPaths(t *testing.T, emulators map[string]*emulator, st *store.Store) {
	t.Run("provider-webhook: a hit on an approved customer opens a review", func(t *testing.T) {
		hitOnACustomer(t, emulators["provider-webhook"], st)
	})
	t.Run("web: a claimed review's page", func(t *testing.T) {
		claimedReviewPage(t, emulators["web"], st)
	})
}

// hitOnACustomer: an approved, clear customer, then a signed later answer
// of its screening with a match: the function (its grants: reviews,
// audit, the queue's counts) opens a review and marks the hit.
func hitOnACustomer(t *testing.T, e *emulator, st *store.Store) {
	ctx := context.Background()
	at := time.Now().UTC().Add(-time.Hour)
	created, err := st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{
			AccountID: 1, RegistrationNumber: "7001111128", LegalName: "Al Noor Listed Trading",
			CountryCode: "SA", CountryID: 682, Status: domain.EntityApproved,
			RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsClear,
			CreatedAt: at, UpdatedAt: at,
		},
		Checks: []domain.Check{{
			Type: domain.CheckOrganizationScreening, ProviderKey: checks.ProviderOpenSanctions,
			Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"matches_count": 0}, CreatedAt: at, UpdatedAt: at,
		}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewCompleted, CreatedAt: at, UpdatedAt: at}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ent := created.Entity
	now := time.Now()
	body, err := json.Marshal(sim.NewScreeningEvent(fmt.Sprintf("evs-1-%d", created.Checks[0].ID), sim.Hit, ent.LegalName, now))
	if err != nil {
		t.Fatal(err)
	}
	raw := readSampleEvent(t, "provider-webhook.json")
	var ev map[string]any
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ev["body"] = string(body)
	headers, multi := ev["headers"].(map[string]any), ev["multiValueHeaders"].(map[string]any)
	for k, v := range map[string]string{"webhook-id": "msg_rie_hit_on_a_customer", "Content-Length": strconv.Itoa(len(body))} {
		headers[k], multi[k] = v, []any{v}
	}
	raw, _ = json.Marshal(ev)
	out := e.invoke(t, resignWebhook(t, raw, sampleWebhookSecret, now))
	var r events.APIGatewayProxyResponse
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("proxy response %s: %v", out, err)
	}
	if r.StatusCode != 200 || !strings.Contains(r.Body, `"applied"`) {
		t.Fatalf("the hit answered %d %s", r.StatusCode, r.Body)
	}
	after, err := st.Entity(ctx, 1, ent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != domain.EntityUnderMonitoring || after.SanctionsStatus != domain.SanctionsHit || after.ReviewsCount != 2 {
		t.Fatalf("after the hit: status %s, sanctions %s, %d reviews; want under_monitoring, hit, 2", after.Status, after.SanctionsStatus, after.ReviewsCount)
	}
}

// claimedReviewPage: the sample decisions started and assigned review 1;
// its page, to an operator signed in with a passkey, reads the queue's
// review, the entity, its checks, its trail and the trail's exports.
func claimedReviewPage(t *testing.T, e *emulator, st *store.Store) {
	ctx := context.Background()
	op, err := st.Operator(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	keys := &passkey.Service{Store: st, Clock: domain.SystemClock,
		Config: passkey.Config{RPID: "localhost", RPDisplayName: "EVS", Origins: []string{"http://localhost:3000"}}}
	signer, err := passkeytest.Enrol(ctx, keys, op)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := (&portal.Service{Store: st, Clock: domain.SystemClock}).StartSession(ctx, 1, op.ID, signer.Auth.Credentials()[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	review, err := st.Review(ctx, 1, domain.ScopedID(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if review.Status == domain.ReviewOpen {
		t.Fatalf("review %d is still open: the sample decisions were to claim it", review.ID)
	}
	path := fmt.Sprintf("/console/reviews/%d", review.ID)
	var ev map[string]any
	if err := json.Unmarshal(readSampleEvent(t, "web.json"), &ev); err != nil {
		t.Fatal(err)
	}
	cookie := portal.ConsoleCookie + "=" + token
	ev["path"], ev["httpMethod"], ev["body"], ev["isBase64Encoded"] = path, "GET", nil, false
	ev["pathParameters"] = map[string]any{"proxy": strings.TrimPrefix(path, "/console/")}
	rc := ev["requestContext"].(map[string]any)
	rc["path"], rc["httpMethod"] = "/dev"+path, "GET"
	headers, multi := ev["headers"].(map[string]any), ev["multiValueHeaders"].(map[string]any)
	for _, k := range []string{"Content-Type", "Origin"} {
		delete(headers, k)
		delete(multi, k)
	}
	headers["Cookie"], multi["Cookie"] = cookie, []any{cookie}
	raw, _ := json.Marshal(ev)
	var r events.APIGatewayProxyResponse
	if err := json.Unmarshal(e.invoke(t, raw), &r); err != nil {
		t.Fatal(err)
	}
	page := r.Body
	if r.IsBase64Encoded {
		b, _ := base64.StdEncoding.DecodeString(r.Body)
		page = string(b)
	}
	if r.StatusCode != http.StatusOK || !strings.Contains(page, "Al Waha Supplies") {
		t.Fatalf("the review page answered %d: %.600s", r.StatusCode, page)
	}
}
