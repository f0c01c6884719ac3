package seed

import (
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// checkReviews asserts the shape of every review of d and that they agree
// with the entity's status.
func checkReviews(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	rs := d.Reviews
	if len(rs) > 2 || e.ReviewsCount != len(rs) {
		t.Errorf("%q: %d reviews, ReviewsCount %d", name, len(rs), e.ReviewsCount)
	}
	for i, rv := range rs {
		wantPurpose := domain.ReviewInitial
		if i > 0 {
			wantPurpose = domain.ReviewPeriodic
		}
		if rv.Purpose != wantPurpose {
			t.Errorf("%q: review %d is %s", name, i, rv.Purpose)
		}
		if rv.ID != 0 || rv.EntityID != 0 || rv.AccountID != 0 {
			t.Errorf("%q: review %d carries ids", name, i)
		}
		wantChecks := 0
		if i == 0 {
			wantChecks = len(d.Checks)
		}
		if rv.ChecksCount != wantChecks || rv.NotesCount < 0 || rv.NotesCount > 5 {
			t.Errorf("%q: review %d: checks %d, notes %d", name, i, rv.ChecksCount, rv.NotesCount)
		}
		assigned := rv.AssignedUserID != nil && rv.AssignedUserName != nil && *rv.AssignedUserName != ""
		if (rv.AssignedUserID == nil) != (rv.AssignedUserName == nil) {
			t.Errorf("%q: review %d assignee half set", name, i)
		}
		decided := rv.Outcome != nil && rv.OutcomeReason != nil && rv.CompletedAt != nil
		switch rv.Status {
		case domain.ReviewOpen:
			if assigned || rv.StartedAt != nil || rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: open review %+v", name, rv)
			}
		case domain.ReviewInProgress, domain.ReviewEscalated:
			if !assigned || rv.StartedAt == nil || rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: %s review %+v", name, rv.Status, rv)
			}
		case domain.ReviewCompleted:
			if !assigned || rv.StartedAt == nil || !decided || rv.CompletedAt.Before(*rv.StartedAt) ||
				(*rv.Outcome != domain.OutcomeApproved && *rv.Outcome != domain.OutcomeRejected) || *rv.OutcomeReason == "" {
				t.Errorf("%q: completed review %+v", name, rv)
			}
		case domain.ReviewCancelled:
			if rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: cancelled review %+v", name, rv)
			}
		default:
			t.Errorf("%q: review status %q", name, rv.Status)
		}
	}
	decidedAs := func(rv domain.Review, outcome string) bool {
		return rv.Status == domain.ReviewCompleted && rv.Outcome != nil && *rv.Outcome == outcome
	}
	switch e.Status {
	case domain.EntityDraft:
		if len(rs) != 0 {
			t.Errorf("%q: draft with %d reviews", name, len(rs))
		}
	case domain.EntityReadyForReview:
		if !slices.ContainsFunc(rs, func(rv domain.Review) bool { return rv.Status.Active() }) {
			t.Errorf("%q: ready for review without an active review", name)
		}
	case domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring:
		if len(rs) == 0 || !decidedAs(rs[0], domain.OutcomeApproved) {
			t.Errorf("%q: %s without an approved initial review", name, e.Status)
		}
	case domain.EntityRejected:
		if !slices.ContainsFunc(rs, func(rv domain.Review) bool { return decidedAs(rv, domain.OutcomeRejected) }) {
			t.Errorf("%q: rejected without a rejecting review", name)
		}
	default:
		t.Errorf("%q: entity status %q", name, e.Status)
	}
}

func TestDemoReviews(t *testing.T) {
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			checkReviews(t, d)
		}
	}
}

func TestDemoCounts(t *testing.T) {
	for _, d := range Demo(testNow, 1000) {
		e := d.Entity
		if e.RelationshipsCount < 0 || e.RelationshipsCount > 4 || e.DocumentsCount < 0 || e.DocumentsCount > 6 || e.AccountID != 0 || e.ID != 0 {
			t.Errorf("%q: relationships %d, documents %d, account %d, id %d", e.LegalName, e.RelationshipsCount, e.DocumentsCount, e.AccountID, e.ID)
		}
		for _, u := range []*string{e.WebsiteURL, e.SocialURL} {
			if u != nil && !strings.HasPrefix(*u, "https://") {
				t.Errorf("%q: url %q", e.LegalName, *u)
			}
		}
		if e.Risk != nil && !slices.Contains(domain.RiskLevels(), e.Risk.Level) {
			t.Errorf("%q: risk %q", e.LegalName, e.Risk.Level)
		}
		if e.Status == domain.EntityDraft && e.Risk != nil {
			t.Errorf("%q: draft assessed", e.LegalName)
		}
	}
}
