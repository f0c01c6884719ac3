package seed

import (
	"math/rand/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// scenario pins an entity's story (or part of it) so that the demo set
// covers every value, whatever the dice say.
type scenario struct {
	country string
	status  domain.EntityStatus
	tweak   func(p *plan, r *rand.Rand)
}

// scenarios are applied to every third entity from the oldest until they run
// out (positions 0, 3, ... 3*(len-1) < 120).
var scenarios = []scenario{
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = checkPlan{}, checkPlan{}
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening, p.extra = cleanRegistry, cleanScreening, extraNone
		p.assessed, p.risk = true, domain.RiskLow
	}},
	{saCode, domain.EntityApproved, func(p *plan, _ *rand.Rand) {
		p.extra = extraNone
		p.assessed, p.risk = true, domain.RiskLow
	}},
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = status(domain.CheckPending), status(domain.CheckPending)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewInProgress
		p.registry, p.screening, p.extra = completed(regSuspended), completed(scrNeedsReview), extraNone
		p.assessed, p.risk = true, domain.RiskMedium
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonSanctionsHit, false)
		p.assessed, p.risk = true, domain.RiskHigh
	}},
	{aeCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewEscalated
		p.screening, p.extra, p.extraCheck = completed(scrHit), extraOperatorRescreen, completed(scrHit)
		p.assessed, p.risk = true, domain.RiskHigh
	}},
	{saCode, domain.EntityOnboarded, nil},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewCancelled, extraPeriodicRescreen)
	}},
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = status(domain.CheckRunning), status(domain.CheckFailed)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening = status(domain.CheckFailed), status(domain.CheckFailed)
		p.extra, p.extraCheck = extraOperatorRescreen, status(domain.CheckRunning)
		p.assessed = false
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonRegistryInvalid, false)
		p.registry = completed(regExpired)
	}},
	{aeCode, domain.EntityApproved, func(p *plan, _ *rand.Rand) {
		p.extra = extraParty
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewEscalated, extraPeriodicLookup)
		p.extraCheck = completed(regExpired)
	}},
	{aeCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.screening = status(domain.CheckRunning)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewInProgress
		p.registry, p.screening = completed(regExpired), cleanScreening
		p.extra = extraParty
	}},
	{aeCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonDocumentsMissing, false)
	}},
	{aeCode, domain.EntityOnboarded, nil},
	// With the open review at position 3, one the decision policy lets an
	// operator approve (clear, checked, assessed): the READMEs' examples
	// approve both.
	{aeCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewOpen, extraPeriodicRescreen)
		p.assessed, p.risk = true, domain.RiskLow
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewCompleted, extraPeriodicRescreen)
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewInProgress, extraPeriodicLookup)
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonSanctionsHit, true)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening, p.extra = status(domain.CheckPending), status(domain.CheckRunning), extraNone
		p.assessed = false
	}},
	{aeCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewEscalated
		p.screening, p.extra = completed(scrNeedsReview), extraParty
		p.assessed, p.risk = true, domain.RiskMedium
	}},
}
