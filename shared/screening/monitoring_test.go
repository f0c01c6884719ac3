package screening_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/screening/screeningtest"
)

// TestWhichAnswersOpenAReview: the rule, in memory. The reader answers hit
// (world.service); the entity and its reviews vary.
func TestWhichAnswersOpenAReview(t *testing.T) {
	approved := entity
	approved.Status, approved.SanctionsStatus, approved.ReviewsCount = domain.EntityApproved, domain.SanctionsClear, 1
	with := func(edit func(*domain.Entity)) domain.Entity {
		e := approved
		edit(&e)
		return e
	}
	ended := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	completed := domain.Review{ID: 5, EntityID: entity.ID, Status: domain.ReviewCompleted}
	done := check
	done.Status = domain.CheckCompleted
	done.Result = map[string]any{"status": "hit", "matches": []any{map[string]any{"id": "NK-old", "score": 0.97}}}
	partyID, partyName := int64(31), "Noura Al-Otaibi"
	party := check
	party.SubjectType, party.SubjectID, party.SubjectDisplayName = new("party"), &partyID, &partyName
	partyDone := done
	partyDone.SubjectType, partyDone.SubjectID, partyDone.SubjectDisplayName = party.SubjectType, party.SubjectID, party.SubjectDisplayName
	partyCleared := partyDone
	partyCleared.Result = map[string]any{"status": "clear", "matches": []any{}}
	tests := []struct {
		name        string
		entity      domain.Entity
		check       domain.Check
		reviews     []domain.Review
		wantReads   int // EntityReviews calls
		wantOpening bool
	}{
		{"approved, clear, no active review", approved, check, []domain.Review{completed}, 1, true},
		{"onboarded", with(func(e *domain.Entity) { e.Status = domain.EntityOnboarded }), check, nil, 1, true},
		{"under an open review", approved, check, []domain.Review{{ID: 6, Status: domain.ReviewOpen}, completed}, 1, false},
		{"under an escalated review", approved, check, []domain.Review{{ID: 6, Status: domain.ReviewEscalated}}, 1, false},
		{"still in intake", with(func(e *domain.Entity) { e.Status = domain.EntityReadyForReview }), check, nil, 0, false},
		{"rejected", with(func(e *domain.Entity) { e.Status = domain.EntityRejected }), check, nil, 0, false},
		{"relationship ended", with(func(e *domain.Entity) { e.RelationshipEndedAt = &ended }), check, nil, 0, false},
		{"already a hit, same matches", with(func(e *domain.Entity) { e.SanctionsStatus = domain.SanctionsHit }), done, []domain.Review{completed}, 0, false},
		// A party's screening is judged against the party's own last answer,
		// never the entity's status.
		{"a party's first answer", approved, party, []domain.Review{completed}, 1, true},
		{"a party cleared before", approved, partyCleared, []domain.Review{completed}, 1, true},
		{"a party already a hit, same matches", approved, partyDone, []domain.Review{completed}, 0, false},
		{"a party's hit on an entity already a hit", with(func(e *domain.Entity) { e.SanctionsStatus = domain.SanctionsHit }), party, []domain.Review{completed}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world{check: tt.check, entity: tt.entity, earlier: []domain.Check{tt.check}}
			svc := w.service()
			reads := 0
			svc.Store.(*screeningtest.Store).EntityReviewsFn = func(_ context.Context, accountID, entityID int64, want int) ([]domain.Review, error) {
				reads++
				if want != tt.entity.ReviewsCount {
					t.Errorf("EntityReviews want %d, the entity counts %d", want, tt.entity.ReviewsCount)
				}
				return tt.reviews, nil
			}
			if _, err := svc.Apply(context.Background(), provider, "msg_m", screening.Answer{Reference: ref}); err != nil {
				t.Fatal(err)
			}
			u := w.updates[0]
			if tt.check.SubjectType != nil && (u.SanctionsStatus != tt.entity.SanctionsStatus || u.Score != nil) {
				t.Errorf("a party's answer set the entity's sanctions status %s (was %s), score %v", u.SanctionsStatus, tt.entity.SanctionsStatus, u.Score)
			}
			if reads != tt.wantReads || (u.Opens != nil) != tt.wantOpening {
				t.Fatalf("reviews read %d times, opens %+v; want %d reads, opening %v", reads, u.Opens, tt.wantReads, tt.wantOpening)
			}
			if o := u.Opens; o != nil {
				r, a := o.Review, o.Audit
				if r.Purpose != domain.ReviewPeriodic || r.Status != domain.ReviewOpen || r.AssignedUserID != nil || !r.DueNow() ||
					r.EntityID != entity.ID || !r.CreatedAt.Equal(at) {
					t.Errorf("review %+v", r)
				}
				if a.Action != domain.ActionOpenPeriodicReview || a.OperatorID != 0 || a.OperatorName != screening.MonitorName ||
					a.ActionID != screening.MonitoringActionID(provider, "msg_m") || a.After["check_id"] != answeredAs(u) ||
					(tt.check.SubjectType != nil) != strings.Contains(a.Reason, partyName) {
					t.Errorf("audit %+v", a)
				}
			}
		})
	}
}

// answeredAs is the id of the check the answer was written to: the check
// itself, or the new one a later answer to a complete check is.
func answeredAs(u domain.ScreeningUpdate) int64 {
	if u.New != nil {
		return u.New.ID
	}
	return u.Check.ID
}
