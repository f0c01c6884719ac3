package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// TestAPartysLaterMatchOpensAReview: ongoing monitoring covers the people
// behind the business. A signed provider answer on an approved entity's
// party's screening that reports a match opens a review of the entity, the
// trail naming the party; the entity's own sanctions status stays its own
// screening's; the new screening is the party's, and the approval the
// review asks for is refused over that party's match until it is judged. A
// clear answer on a party opens none.
func TestAPartysLaterMatchOpensAReview(t *testing.T) {
	ctx := context.Background()
	f := newCreateFixture(t)
	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	const party = "نورة خالد العتيبي"
	tests := []struct {
		name       string
		number     string
		outcome    sim.Outcome
		wantOpened bool
	}{
		{"a 0.95 sanctions match on a partner's owner", "7000000140", sim.Hit, true},
		{"a clear answer on a partner's owner", "7000000240", sim.Clear, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.create(t, map[string]any{"registration_number": tt.number, "country_code": "SA"})
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			entityID := int64(r.json(t)["id"].(float64))
			f.approveInStore(t, entityID)
			before, err := f.st.EntityDetail(ctx, f.account, entityID)
			if err != nil {
				t.Fatal(err)
			}
			var check domain.Check
			for _, c := range before.Checks {
				if c.Type == domain.CheckOrganizationScreening && domain.Deref(c.SubjectDisplayName) == party {
					check = c
				}
			}
			if check.ID == 0 {
				t.Fatalf("no screening of %s among %d checks", party, len(before.Checks))
			}
			now := time.Now()
			event := sim.NewScreeningEvent(fmt.Sprintf("evs-%d-%d", f.account, check.ID), tt.outcome, party, now)
			for _, res := range event.Data.Response["results"].([]any) {
				m := res.(map[string]any)
				m["id"], m["schema"], m["score"] = "NK-party-later", "Person", 0.95
				m["properties"].(map[string]any)["birthDate"] = []string{"1979-03-14"}
			}
			d := f.webhookPost(t, secrets[0], "", event, now)
			if d.Status != 200 || !strings.Contains(d.Body, `"applied"`) {
				t.Fatalf("delivery: %d %s", d.Status, d.Body)
			}
			after, err := f.st.EntityDetail(ctx, f.account, entityID)
			if err != nil {
				t.Fatal(err)
			}
			if after.Entity.SanctionsStatus != before.Entity.SanctionsStatus {
				t.Errorf("the entity's sanctions status went %s → %s on its party's answer: it follows its own screening",
					before.Entity.SanctionsStatus, after.Entity.SanctionsStatus)
			}
			var newest domain.Check
			for _, c := range after.Checks {
				if c.ID > newest.ID && c.Type == domain.CheckOrganizationScreening {
					newest = c
				}
			}
			if newest.ID == check.ID || domain.Deref(newest.SubjectID) != domain.Deref(check.SubjectID) ||
				newest.TriggeringReason != domain.TriggerProviderUpdate {
				t.Errorf("the answer was written as check %d (subject %v, %s): want a new screening of party %d",
					newest.ID, domain.Deref(newest.SubjectID), newest.TriggeringReason, domain.Deref(check.SubjectID))
			}
			var active []domain.Review
			for _, rv := range after.Reviews {
				if rv.Status.Active() {
					active = append(active, rv)
				}
			}
			if !tt.wantOpened {
				if len(active) != 0 || after.Entity.Status != domain.EntityApproved {
					t.Errorf("a clear answer on a party: %d active reviews, entity %s; want none, approved", len(active), after.Entity.Status)
				}
				return
			}
			if len(active) != 1 || active[0].Purpose != domain.ReviewPeriodic || active[0].TriggeringReason != domain.TriggerProviderUpdate ||
				after.Entity.Status != domain.EntityUnderMonitoring {
				t.Fatalf("active reviews %+v, entity %s: want one periodic review opened by the provider's update", active, after.Entity.Status)
			}
			trail, err := f.st.AuditTrail(ctx, f.account, entityID)
			if err != nil {
				t.Fatal(err)
			}
			opened := trail[len(trail)-1]
			if opened.Action != domain.ActionOpenPeriodicReview || !strings.Contains(opened.Reason, party) || opened.After["answered"] != "hit" {
				t.Errorf("the opening's record: %s %q %v; want it to name the party and what its screening answered", opened.Action, opened.Reason, opened.After)
			}

			f.approvalWaitsForTheMatch(t, entityID, active[0].ID, "Monitoring Decider "+tt.number, "NK-party-later", party)
		})
	}
}
