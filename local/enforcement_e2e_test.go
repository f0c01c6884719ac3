package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// withoutGrant is f's catalogue entry with one action taken off one table.
func withoutGrant(t *testing.T, name, table, action string) deploy.Function {
	t.Helper()
	f, err := catalogued(name)
	if err != nil {
		t.Fatal(err)
	}
	taken := false
	var grants []deploy.Grant
	for _, g := range f.Grants {
		if g.Table == table && slices.Contains(g.Actions, action) {
			g.Actions = slices.DeleteFunc(slices.Clone(g.Actions), func(a string) bool { return a == action })
			taken = true
		}
		grants = append(grants, g)
	}
	if !taken {
		t.Fatalf("%s has no %s on %s to take away", name, action, table)
	}
	f.Grants = grants
	return f
}

// TestAGrantTakenAwayIsRefusedAsIAMRefuses: the enforcement can fail. With
// provider-webhook's PutItem on the reviews table taken from its catalogue
// entry, a signed hit for an approved customer is refused at the call with
// AWS's AccessDeniedException naming the action and the table, answered 500,
// and nothing of it is written: the entity stays approved and clear, its
// checks and reviews as they were. The same delivery to the function as
// catalogued then opens the review: the provider's retry loses nothing.
func TestAGrantTakenAwayIsRefusedAsIAMRefuses(t *testing.T) {
	f := newCreateFixture(t)
	r := f.create(t, map[string]any{"registration_number": "7000000640", "country_code": "SA", "legal_name": "Listed Trading 7000000640"})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	m := r.json(t)
	entityID := int64(m["id"].(float64))
	f.approveInStore(t, entityID)
	ctx := context.Background()
	before, err := f.st.Entity(ctx, f.account, entityID)
	if err != nil {
		t.Fatal(err)
	}

	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	p := simulatorProviders(f.simURL)
	gw, err := buildGateway(p.deps(f.st, log), withoutGrant(t, "provider-webhook", schema.Reviews, "dynamodb:PutItem"))
	if err != nil {
		t.Fatal(err)
	}
	narrow := httptest.NewServer(gw)
	t.Cleanup(narrow.Close)

	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	checkID := int64(checksByType(t, m)["organization_screening"]["id"].(float64))
	now := time.Now()
	event := sim.NewScreeningEvent(fmt.Sprintf("evs-%d-%d", f.account, checkID), sim.Hit, "Listed Trading 7000000640", now)
	d, err := sim.Send(ctx, checkedClient(t), narrow.URL+"/webhooks/opensanctions", secrets[0], "", event, now)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != 500 {
		t.Fatalf("without the grant the webhook answered %d %s, want 500", d.Status, d.Body)
	}
	want := "not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/" + f.st.Names()[schema.Reviews]
	if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "AccessDeniedException") {
		t.Fatalf("the function's log does not name the refusal %q:\n%s", want, logs.String())
	}
	after, err := f.st.Entity(ctx, f.account, entityID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != domain.EntityApproved || after.SanctionsStatus != before.SanctionsStatus ||
		after.ChecksCount != before.ChecksCount || after.ReviewsCount != before.ReviewsCount || after.DossierRev != before.DossierRev {
		t.Fatalf("a refused answer changed the entity: before %+v, after %+v", before, after)
	}

	// The provider retries the same delivery; the function as catalogued
	// takes it.
	d2 := f.webhookPost(t, secrets[0], d.ID, event, now)
	if d2.Status != 200 || !strings.Contains(d2.Body, `"applied"`) {
		t.Fatalf("the retry: %d %s", d2.Status, d2.Body)
	}
	opened, err := f.st.Entity(ctx, f.account, entityID)
	if err != nil {
		t.Fatal(err)
	}
	if opened.Status != domain.EntityUnderMonitoring || opened.ReviewsCount != before.ReviewsCount+1 {
		t.Fatalf("the retry under the catalogue's grants: status %s, %d reviews (was %d)", opened.Status, opened.ReviewsCount, before.ReviewsCount)
	}
}
