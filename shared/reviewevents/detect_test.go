package reviewevents

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// base is a review being worked on: in progress, assigned to operator 7.
func base() domain.Review {
	return domain.Review{
		AccountID: 1, ID: 20, EntityID: 10, Purpose: domain.ReviewInitial, Status: domain.ReviewInProgress,
		AssignedUserID: ptr(int64(7)), AssignedUserName: ptr("Dana"), StartedAt: ptr(t0),
		CreatedAt: t0, UpdatedAt: t0, Version: 3,
	}
}

// changed is r after an operator action: the next version, an hour later.
func changed(r domain.Review, edit func(*domain.Review)) domain.Review {
	r.Version++
	r.UpdatedAt = r.UpdatedAt.Add(time.Hour)
	edit(&r)
	return r
}

func TestDetect(t *testing.T) {
	escalated := func(level string) domain.Review {
		r := base()
		r.Status, r.Escalation = domain.ReviewEscalated, ptr(level)
		return r
	}
	open := base()
	open.Status, open.AssignedUserID, open.AssignedUserName, open.StartedAt = domain.ReviewOpen, nil, nil, nil
	tests := []struct {
		name     string
		old, new *domain.Review
		want     []domain.EventType
	}{
		// Events.
		{"approve", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), ptr("ok"), ptr(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"reject", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeRejected), ptr("no"), ptr(t0)
		})), []domain.EventType{domain.EventRejected}},
		{"approve an escalated review", ptr(escalated(domain.EscalationAML)), ptr(changed(escalated(domain.EscalationAML), func(r *domain.Review) {
			r.Status, r.Outcome, r.Escalation, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), nil, ptr(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"escalate", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate an open review", &open, ptr(changed(open, func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate to AML", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationAML)
		})), []domain.EventType{domain.EventEscalatedToAML}},
		{"supervisor to AML fires escalated_to_aml only", ptr(escalated(domain.EscalationSupervisor)),
			ptr(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) { r.Escalation = ptr(domain.EscalationAML) })),
			[]domain.EventType{domain.EventEscalatedToAML}},
		{"assign an unassigned review", &open, ptr(changed(open, func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(8)), ptr("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"reassign", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(8)), ptr("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"queue checks", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.ChecksQueuedAt, r.ChecksCount = ptr(t0.Add(time.Hour)), 2
		})), []domain.EventType{domain.EventChecksQueued}},
		{"queue checks again", ptr(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) })),
			ptr(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) }), func(r *domain.Review) {
				r.ChecksQueuedAt = ptr(t0.Add(2 * time.Hour))
			})), []domain.EventType{domain.EventChecksQueued}},
		// Starting a review nobody holds assigns it to the operator who
		// starts it: its assignee changes (spec 6: "a review's assignee
		// changes"), the start itself is no event.
		{"start assigning the operator", &open, ptr(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, ptr(t0), ptr(int64(7)), ptr("Dana")
		})), []domain.EventType{domain.EventAssigned}},

		// Non-events.
		{"insert (a new review)", nil, &open, nil},
		{"remove", &open, nil, nil},
		{"start an assigned review", ptr(func() domain.Review {
			r := open
			r.AssignedUserID, r.AssignedUserName = ptr(int64(7)), ptr("Dana")
			return r
		}()), ptr(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, ptr(t0), ptr(int64(7)), ptr("Dana")
		})), nil},
		{"cancel", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.OutcomeReason = domain.ReviewCancelled, ptr(t0), ptr("duplicate")
		})), nil},
		{"cancel an escalated review", ptr(escalated(domain.EscalationSupervisor)), ptr(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.Escalation = domain.ReviewCancelled, ptr(t0), nil
		})), nil},
		{"profile-only change (updated_at, version)", ptr(base()), ptr(changed(base(), func(*domain.Review) {})), nil},
		{"notes count", ptr(base()), ptr(changed(base(), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"assign to the same person", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(7)), ptr("Dana")
		})), nil},
		{"unassign", ptr(base()), ptr(changed(base(), func(r *domain.Review) { r.AssignedUserID, r.AssignedUserName = nil, nil })), nil},
		{"re-escalation to the same level", ptr(escalated(domain.EscalationSupervisor)),
			ptr(changed(escalated(domain.EscalationSupervisor), func(*domain.Review) {})), nil},
		{"AML again", ptr(escalated(domain.EscalationAML)), ptr(changed(escalated(domain.EscalationAML), func(*domain.Review) {})), nil},
		{"a completed review changed again", ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, ptr(domain.OutcomeApproved)
		})), ptr(changed(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, ptr(domain.OutcomeApproved)
		}), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"same checks_queued_at", ptr(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) })),
			ptr(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) }), func(*domain.Review) {})), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Detect(tc.old, tc.new)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewEvent(t *testing.T) {
	approved := changed(base(), func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), ptr(t0)
	})
	rejected := changed(base(), func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeRejected), ptr(t0)
	})
	escalated := changed(base(), func(r *domain.Review) { r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationAML) })
	tests := []struct {
		kind domain.EventType
		r    domain.Review
		want string
	}{
		{domain.EventApproved, approved,
			`{"event_type":"entity_review.approved","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"approved","occurred_at":"2026-11-01T10:00:00.000Z"}`},
		{domain.EventRejected, rejected,
			`{"event_type":"entity_review.rejected","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"rejected","occurred_at":"2026-11-01T10:00:00.000Z"}`},
		{domain.EventEscalatedToAML, escalated,
			`{"event_type":"entity_review.escalated_to_aml","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":null,"occurred_at":"2026-11-01T10:00:00.000Z"}`},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			b, err := delivery.EncodeBody(NewEvent(tc.kind, tc.r))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("body\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestEventID(t *testing.T) {
	r := base()
	next := changed(r, func(*domain.Review) {})
	other := r
	other.ID = 21
	otherAccount := r
	otherAccount.AccountID = 2
	sameVersionLater := r
	sameVersionLater.UpdatedAt = r.UpdatedAt.Add(time.Minute) // a re-read of the same version
	id := EventID(domain.EventApproved, r)
	if !regexp.MustCompile(`^evt_[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("EventID = %q, want evt_ and 32 hex digits", id)
	}
	tests := []struct {
		name string
		kind domain.EventType
		r    domain.Review
		same bool
	}{
		{"same version", domain.EventApproved, r, true},
		{"same version, other fields", domain.EventApproved, sameVersionLater, true},
		{"next version", domain.EventApproved, next, false},
		{"other kind", domain.EventAssigned, r, false},
		{"other review", domain.EventApproved, other, false},
		{"other account", domain.EventApproved, otherAccount, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EventID(tc.kind, tc.r); (got == id) != tc.same {
				t.Errorf("EventID = %s, first %s; want same=%v", got, id, tc.same)
			}
		})
	}
}

// reviewsWorld is the stored reviews the emitter's tests change.
type reviewsWorld struct{ *devstacktest.Reviews }

func newReviewsWorld(t *testing.T) *reviewsWorld {
	return &reviewsWorld{devstacktest.NewReviews(t, t0)}
}
