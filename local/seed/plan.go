package seed

import (
	"math/rand/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// Plans: what an entity's story is, decided before any timestamp.

type extraKind int

const (
	extraNone             extraKind = iota
	extraOperatorRescreen           // operator asked to screen the organisation again (or to retry a failed intake)
	extraParty                      // operator screened one of the entity's parties
	extraPeriodicRescreen           // screening run for a periodic review
	extraPeriodicLookup             // registry lookup run for a periodic review (SA)
)

// checkPlan is one check's status and, when completed, its outcome. A zero
// status means no such check.
type checkPlan struct {
	status  domain.CheckStatus
	outcome string
}

type plan struct {
	country  string
	status   domain.EntityStatus
	initial  domain.ReviewStatus // "" when the entity has no review
	periodic domain.ReviewStatus // "" when it has no periodic review
	// Outcomes and reasons of completed reviews.
	initialOutcome, initialReason   string
	periodicOutcome, periodicReason string
	registry                        checkPlan // intake registry lookup (SA only)
	screening                       checkPlan // intake organisation screening
	extra                           extraKind
	extraCheck                      checkPlan
	assessed                        bool
	risk                            domain.RiskLevel // forced level when assessed; "" derives it
	fewDocuments                    bool
}

var (
	cleanRegistry  = checkPlan{domain.CheckCompleted, regActive}
	cleanScreening = checkPlan{domain.CheckCompleted, scrClear}
)

func completed(outcome string) checkPlan { return checkPlan{domain.CheckCompleted, outcome} }

// status is a check that has not completed (completed ones need an outcome).
func status(s domain.CheckStatus) checkPlan { return checkPlan{status: s} }

func randomCountry(r *rand.Rand) string {
	if pct(r, 85) {
		return saCode
	}
	return aeCode
}

func randomStatus(r *rand.Rand) domain.EntityStatus {
	return weighted(r,
		c(domain.EntityDraft, 12),
		c(domain.EntityReadyForReview, 25),
		c(domain.EntityApproved, 18),
		c(domain.EntityRejected, 10),
		c(domain.EntityOnboarded, 20),
		c(domain.EntityUnderMonitoring, 15),
	)
}

// intakeRegistry is a registry lookup of an entity still in review.
func intakeRegistry(r *rand.Rand) checkPlan {
	return intakeCheck(weighted(r, c(domain.CheckCompleted, 75), c(domain.CheckFailed, 10), c(domain.CheckRunning, 8), c(domain.CheckPending, 7)),
		func() string { return weighted(r, c(regActive, 80), c(regSuspended, 10), c(regExpired, 10)) })
}

// intakeScreening is an organisation screening of an entity still in review.
func intakeScreening(r *rand.Rand) checkPlan {
	return intakeCheck(weighted(r, c(domain.CheckCompleted, 75), c(domain.CheckRunning, 10), c(domain.CheckPending, 8), c(domain.CheckFailed, 7)),
		func() string { return weighted(r, c(scrClear, 75), c(scrNeedsReview, 15), c(scrHit, 10)) })
}

// intakeCheck is a check in status s; a completed one draws its outcome
// (only then, so the draws stay in the same order).
func intakeCheck(s domain.CheckStatus, outcome func() string) checkPlan {
	if s == domain.CheckCompleted {
		return completed(outcome())
	}
	return status(s)
}

func approvedReason(r *rand.Rand) string {
	return weighted(r, c(ReasonDocumentsVerified, 50), c(ReasonRegistryVerified, 30), c(ReasonLowRisk, 20))
}

// setApproved gives the entity a completed, approved initial review and
// clean intake checks.
func setApproved(p *plan, r *rand.Rand) {
	p.initial, p.initialOutcome, p.initialReason = domain.ReviewCompleted, domain.OutcomeApproved, approvedReason(r)
	p.registry, p.screening = cleanRegistry, cleanScreening
}

// setPeriodic adds a periodic review in status st, with the check it ran.
func setPeriodic(p *plan, r *rand.Rand, st domain.ReviewStatus, extra extraKind) {
	setApproved(p, r)
	p.periodic = st
	p.periodicOutcome, p.periodicReason = "", ""
	if st == domain.ReviewCompleted {
		p.periodicOutcome, p.periodicReason = domain.OutcomeApproved, ReasonPeriodicReviewPassed
	}
	p.extra = extra
	switch {
	case extra == extraPeriodicLookup && st == domain.ReviewEscalated:
		p.extraCheck = completed(weighted(r, c(regExpired, 50), c(regSuspended, 50)))
	case extra == extraPeriodicLookup:
		p.extraCheck = cleanRegistry
	case st == domain.ReviewEscalated:
		p.extraCheck = completed(weighted(r, c(scrNeedsReview, 70), c(scrHit, 30)))
	default:
		p.extraCheck = cleanScreening
	}
}

// setRejected makes the entity rejected for reason, by its initial review
// or (viaPeriodic) by a periodic review after an approval.
func setRejected(p *plan, r *rand.Rand, reason string, viaPeriodic bool) {
	setApproved(p, r)
	p.extra, p.extraCheck, p.periodic, p.periodicOutcome, p.periodicReason = extraNone, checkPlan{}, "", "", ""
	p.fewDocuments = reason == ReasonDocumentsMissing
	if viaPeriodic {
		p.periodic, p.periodicOutcome, p.periodicReason = domain.ReviewCompleted, domain.OutcomeRejected, reason
		switch reason {
		case ReasonSanctionsHit:
			p.extra, p.extraCheck = extraPeriodicRescreen, completed(scrHit)
		case ReasonRegistryInvalid:
			p.extra, p.extraCheck = extraPeriodicLookup, completed(weighted(r, c(regExpired, 50), c(regSuspended, 30), c(regCancelled, 20)))
		default:
			p.extra, p.extraCheck = extraPeriodicRescreen, cleanScreening
		}
		return
	}
	p.initialOutcome, p.initialReason = domain.OutcomeRejected, reason
	switch reason {
	case ReasonSanctionsHit:
		p.screening = completed(scrHit)
	case ReasonRegistryInvalid:
		p.registry = completed(weighted(r, c(regSuspended, 40), c(regExpired, 30), c(regCancelled, 30)))
	}
}

// planFor draws a coherent story for an entity of the country and status.
func planFor(r *rand.Rand, country string, st domain.EntityStatus) plan {
	p := plan{country: country, status: st}
	sa := country == saCode
	switch st {
	case domain.EntityDraft:
		if pct(r, 35) {
			break // nothing has run yet
		}
		if sa {
			p.registry = weighted(r,
				c(status(domain.CheckPending), 30), c(status(domain.CheckRunning), 25),
				c(status(domain.CheckFailed), 20), c(cleanRegistry, 25))
		}
		p.screening = weighted(r,
			c(status(domain.CheckPending), 35), c(status(domain.CheckRunning), 30),
			c(status(domain.CheckFailed), 20), c(checkPlan{}, 15))
	case domain.EntityReadyForReview:
		p.initial = weighted(r, c(domain.ReviewOpen, 40), c(domain.ReviewInProgress, 40), c(domain.ReviewEscalated, 20))
		if sa {
			p.registry = intakeRegistry(r)
		}
		p.screening = intakeScreening(r)
		if p.initial == domain.ReviewEscalated && p.screening == cleanScreening && p.registry.outcome != regSuspended && p.registry.outcome != regExpired {
			p.screening = completed(scrNeedsReview) // something to escalate about
		}
		switch {
		case pct(r, 15):
			p.extra = extraOperatorRescreen
			if p.screening.status == domain.CheckFailed {
				p.extraCheck = weighted(r, c(completed(scrClear), 50), c(status(domain.CheckRunning), 25), c(status(domain.CheckPending), 25))
			} else {
				p.extraCheck = completed(weighted(r, c(p.screening.outcome, 70), c(scrNeedsReview, 30)))
			}
		case pct(r, 12):
			p.extra = extraParty
		}
		p.assessed = pct(r, 45)
	case domain.EntityApproved, domain.EntityOnboarded:
		setApproved(&p, r)
		switch {
		case pct(r, 10):
			p.extra = extraParty
		case pct(r, 8):
			p.extra, p.extraCheck = extraOperatorRescreen, cleanScreening
		}
		p.assessed = pct(r, 90)
	case domain.EntityUnderMonitoring:
		if pct(r, 75) {
			st := weighted(r,
				c(domain.ReviewOpen, 25), c(domain.ReviewInProgress, 25), c(domain.ReviewEscalated, 15),
				c(domain.ReviewCompleted, 20), c(domain.ReviewCancelled, 15))
			extra := extraPeriodicRescreen
			if sa && pct(r, 40) {
				extra = extraPeriodicLookup
			}
			setPeriodic(&p, r, st, extra)
		} else {
			setApproved(&p, r)
			if pct(r, 10) {
				p.extra = extraParty
			}
		}
		p.assessed = pct(r, 90)
	case domain.EntityRejected:
		reason := weighted(r, c(ReasonSanctionsHit, 40), c(ReasonRegistryInvalid, 40), c(ReasonDocumentsMissing, 20))
		if !sa && reason == ReasonRegistryInvalid {
			reason = ReasonSanctionsHit
		}
		setRejected(&p, r, reason, pct(r, 25))
		p.assessed = pct(r, 90)
	}
	return p
}

// normalize enforces the rules no tweak may break: no registry lookups
// outside Saudi Arabia, no checks beyond what the intake check allows (a
// screening after a completed one is completed too, so the latest screening
// and the latest completed one tell the same story), parties screened only
// once the organisation was.
func (p *plan) normalize() {
	if p.country != saCode {
		p.registry = checkPlan{}
		if p.extra == extraPeriodicLookup {
			p.extra = extraPeriodicRescreen
			p.extraCheck = cleanScreening
		}
	}
	if p.status == domain.EntityDraft {
		p.initial, p.periodic, p.extra = "", "", extraNone
	}
	if p.periodic == "" && (p.extra == extraPeriodicLookup || p.extra == extraPeriodicRescreen) {
		p.extra = extraNone
	}
	base := p.screening
	if p.extra == extraPeriodicLookup {
		base = p.registry
	}
	switch p.extra {
	case extraParty:
		if p.screening.status != domain.CheckCompleted {
			p.extra = extraNone
		}
		p.extraCheck = p.screening
	case extraOperatorRescreen, extraPeriodicRescreen, extraPeriodicLookup:
		switch base.status {
		case domain.CheckCompleted:
			if p.extraCheck.status != domain.CheckCompleted {
				p.extraCheck = base
			}
		case domain.CheckFailed:
			// a retry: any status
		default:
			p.extra = extraNone
		}
	}
	if p.extra == extraNone {
		p.extraCheck = checkPlan{}
	}
	if p.extraCheck.status == domain.CheckCompleted && p.extraCheck.outcome == "" {
		p.extraCheck.outcome = base.outcome
	}
	if p.status == domain.EntityDraft {
		p.assessed = false
	}
}
