package store_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// A decision writes the review over the stored one attribute by attribute:
// what the review no longer has goes (an escalation, its place in the
// queue once finished), what the entity's create copied stays.
func TestQueueReviewWrite(t *testing.T) {
	w := devstacktest.NewReviews(t, t0)
	for _, tc := range []struct {
		name     string
		from     func(*domain.Review) // a change before, if any
		edit     func(*domain.Review)
		queued   bool
		attrs    []string // present after
		noAttrs  []string // absent after
		wantStat domain.ReviewStatus
	}{
		{"assign", nil, func(r *domain.Review) { r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Operator 7") },
			true, []string{"assigned_user_id", "assigned_user_name"}, []string{"escalation"}, domain.ReviewOpen},
		{"escalate to AML", nil, func(r *domain.Review) { r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationAML) },
			true, []string{"escalation"}, []string{"assigned_user_id"}, domain.ReviewEscalated},
		{"approve an escalated review",
			func(r *domain.Review) {
				r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationSupervisor)
			},
			func(r *domain.Review) {
				r.Status, r.Outcome, r.CompletedAt, r.Escalation = domain.ReviewCompleted, new(domain.OutcomeApproved), new(t0.Add(time.Hour)), nil
			}, false, []string{"outcome", "completed_at"}, []string{"escalation"}, domain.ReviewCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.Review(t, domain.ReviewOpen)
			if tc.from != nil {
				r = w.Change(t, r, tc.from)
			}
			got := w.Change(t, r, tc.edit)
			if got.Status != tc.wantStat || got.Version != r.Version+1 {
				t.Fatalf("review = %s at version %d, want %s at %d", got.Status, got.Version, tc.wantStat, r.Version+1)
			}
			raw := w.Raw(t, got)
			str := func(k string) string {
				s, _ := raw[k].(*types.AttributeValueMemberS)
				if s == nil {
					return ""
				}
				return s.Value
			}
			if str("entity_country") != "SA" || str("entity_name") != "Evented Co" {
				t.Errorf("the entity's copies: %q, %q", str("entity_country"), str("entity_name"))
			}
			if want := domain.QueuePosition(got.CreatedAt, got.ID); (str("queue_key") == want) != tc.queued || (!tc.queued && raw["queue_key"] != nil) {
				t.Errorf("queue_key = %q, want it %v", str("queue_key"), tc.queued)
			}
			for _, k := range tc.attrs {
				if raw[k] == nil {
					t.Errorf("%s is missing", k)
				}
			}
			for _, k := range tc.noAttrs {
				if raw[k] != nil {
					t.Errorf("%s = %v, want none", k, raw[k])
				}
			}
		})
	}
}
