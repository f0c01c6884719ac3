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

// base is a review being worked on: in progress, assigned to operator 7.
func base() domain.Review {
	return domain.Review{
		AccountID: 1, ID: 20, EntityID: 10, Purpose: domain.ReviewInitial, Status: domain.ReviewInProgress,
		AssignedUserID: new(int64(7)), AssignedUserName: new("Dana"), StartedAt: new(t0),
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
		r.Status, r.Escalation = domain.ReviewEscalated, new(level)
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
		{"approve", new(base()), new(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new("ok"), new(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"reject", new(base()), new(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeRejected), new("no"), new(t0)
		})), []domain.EventType{domain.EventRejected}},
		{"approve an escalated review", new(escalated(domain.EscalationAML)), new(changed(escalated(domain.EscalationAML), func(r *domain.Review) {
			r.Status, r.Outcome, r.Escalation, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), nil, new(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"escalate", new(base()), new(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate an open review", &open, new(changed(open, func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate to AML", new(base()), new(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationAML)
		})), []domain.EventType{domain.EventEscalatedToAML}},
		{"supervisor to AML fires escalated_to_aml only", new(escalated(domain.EscalationSupervisor)),
			new(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) { r.Escalation = new(domain.EscalationAML) })),
			[]domain.EventType{domain.EventEscalatedToAML}},
		{"assign an unassigned review", &open, new(changed(open, func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = new(int64(8)), new("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"reassign", new(base()), new(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = new(int64(8)), new("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"queue checks", new(base()), new(changed(base(), func(r *domain.Review) {
			r.ChecksQueuedAt, r.ChecksCount = new(t0.Add(time.Hour)), 2
		})), []domain.EventType{domain.EventChecksQueued}},
		{"queue checks again", new(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = new(t0) })),
			new(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = new(t0) }), func(r *domain.Review) {
				r.ChecksQueuedAt = new(t0.Add(2 * time.Hour))
			})), []domain.EventType{domain.EventChecksQueued}},
		// Starting a review nobody holds assigns it to the operator who
		// starts it: its assignee changes (spec 6: "a review's assignee
		// changes"), the start itself is no event.
		{"start assigning the operator", &open, new(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, new(t0), new(int64(7)), new("Dana")
		})), []domain.EventType{domain.EventAssigned}},

		// Non-events.
		{"insert (a new review)", nil, &open, nil},
		{"remove", &open, nil, nil},
		{"start an assigned review", new(func() domain.Review {
			r := open
			r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Dana")
			return r
		}()), new(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, new(t0), new(int64(7)), new("Dana")
		})), nil},
		{"cancel", new(base()), new(changed(base(), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.OutcomeReason = domain.ReviewCancelled, new(t0), new("duplicate")
		})), nil},
		{"cancel an escalated review", new(escalated(domain.EscalationSupervisor)), new(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.Escalation = domain.ReviewCancelled, new(t0), nil
		})), nil},
		{"profile-only change (updated_at, version)", new(base()), new(changed(base(), func(*domain.Review) {})), nil},
		{"notes count", new(base()), new(changed(base(), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"assign to the same person", new(base()), new(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Dana")
		})), nil},
		{"unassign", new(base()), new(changed(base(), func(r *domain.Review) { r.AssignedUserID, r.AssignedUserName = nil, nil })), nil},
		{"re-escalation to the same level", new(escalated(domain.EscalationSupervisor)),
			new(changed(escalated(domain.EscalationSupervisor), func(*domain.Review) {})), nil},
		{"AML again", new(escalated(domain.EscalationAML)), new(changed(escalated(domain.EscalationAML), func(*domain.Review) {})), nil},
		{"a completed review changed again", new(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, new(domain.OutcomeApproved)
		})), new(changed(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, new(domain.OutcomeApproved)
		}), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"same checks_queued_at", new(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = new(t0) })),
			new(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = new(t0) }), func(*domain.Review) {})), nil},
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
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeApproved), new(t0)
	})
	rejected := changed(base(), func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, new(domain.OutcomeRejected), new(t0)
	})
	escalated := changed(base(), func(r *domain.Review) { r.Status, r.Escalation = domain.ReviewEscalated, new(domain.EscalationAML) })
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
