package seed

import (
	"math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Bulk returns n plain entities for benchmarks: same shape, one country (SA),
// one check and one review each, cheap to generate. Registration numbers are
// unique within the set and never collide with Demo's. Its checks carry no
// evidence and planned results only: what the benchmarks measure is the
// entity's own reads, and the set must stay cheap to make.
func Bulk(now time.Time, n int) []domain.EntityDetail {
	if n <= 0 {
		return []domain.EntityDetail{}
	}
	now = now.UTC().Truncate(time.Millisecond)
	r := rand.New(rand.NewPCG(bulkSeed, 0))
	out := make([]domain.EntityDetail, n)
	for i := range out {
		out[i] = bulkEntity(r, now, i, createdAt(now, i, n, r.Float64()))
	}
	return out
}

var bulkStatuses = []domain.EntityStatus{
	domain.EntityReadyForReview, domain.EntityApproved, domain.EntityRejected,
	domain.EntityOnboarded, domain.EntityUnderMonitoring,
}

func bulkEntity(r *rand.Rand, now time.Time, i int, created time.Time) domain.EntityDetail {
	st := bulkStatuses[i%len(bulkStatuses)]
	updated := created.Add(minLife + time.Duration(r.Float64()*float64(now.Sub(created)-minLife))).Truncate(time.Millisecond)
	life := span{created, updated}
	e := domain.Entity{
		RegistrationNumber: saRegistration(bulkOffset + i),
		LegalName:          pick(r, saCores) + " " + pick(r, sectors) + " " + pick(r, saSuffixes),
		CountryCode:        saCode,
		CountryID:          saNumeric,
		Status:             st,
		RegistrationStatus: domain.RegistrationValid,
		RelationshipsCount: r.IntN(5),
		DocumentsCount:     r.IntN(7),
		ChecksCount:        1,
		ReviewsCount:       1,
		CreatedAt:          created,
		UpdatedAt:          updated,
	}
	checkAt := life.after(created, time.Second)
	rv := domain.Review{Purpose: domain.ReviewInitial, ChecksCount: 1, CreatedAt: life.after(created, 4*time.Second)}
	cp := cleanScreening
	switch st {
	case domain.EntityReadyForReview:
		rv.Status, rv.UpdatedAt = domain.ReviewOpen, rv.CreatedAt
		e.RegistrationStatus = domain.RegistrationUnknown
		if i%2 == 0 {
			cp = status(domain.CheckPending)
		}
	case domain.EntityRejected:
		cp = completed(scrHit)
		fallthrough
	default:
		op := operators[i%len(operators)]
		outcome, reason := domain.OutcomeApproved, ReasonDocumentsVerified
		if st == domain.EntityRejected {
			outcome, reason = domain.OutcomeRejected, ReasonSanctionsHit
		}
		rv.Status, rv.Outcome, rv.OutcomeReason = domain.ReviewCompleted, new(outcome), new(reason)
		rv.AssignedUserID, rv.AssignedUserName = new(op.id), new(op.name)
		rv.StartedAt, rv.CompletedAt, rv.UpdatedAt = new(life.at(0.3)), new(updated), updated
	}
	ch := check(r, domain.CheckOrganizationScreening, domain.TriggerIntake, cp, checkAt, life)
	e.SanctionsStatus = sanctionsFrom([]domain.Check{ch})
	e.Score = checks.ScoreOf(e, []domain.Check{ch})
	if st != domain.EntityReadyForReview {
		e.Risk = &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: updated}
		if st == domain.EntityRejected {
			e.Risk.Level = domain.RiskHigh
		}
	}
	return domain.EntityDetail{Entity: e, Checks: []domain.Check{ch}, Reviews: []domain.Review{rv}}
}
