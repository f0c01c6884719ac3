package seed

import (
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/domain"
)

// Outcome reasons recorded with completed reviews.
const (
	ReasonDocumentsVerified    = "documents_verified"
	ReasonRegistryVerified     = "registry_verified"
	ReasonLowRisk              = "low_risk"
	ReasonPeriodicReviewPassed = "periodic_review_passed"
	ReasonSanctionsHit         = "sanctions_hit"
	ReasonRegistryInvalid      = "registry_invalid"
	ReasonDocumentsMissing     = "documents_missing"
)

// Outcomes a completed registry lookup reports, and what each means for the
// entity's registration status.
const (
	regActive    = sim.RegisterActive
	regSuspended = sim.RegisterSuspended
	regExpired   = sim.RegisterExpired
	regCancelled = sim.RegisterCancelled
)

var registryToRegistration = map[string]domain.RegistrationStatus{
	regActive:    domain.RegistrationValid,
	regSuspended: domain.RegistrationInvalid,
	regCancelled: domain.RegistrationInvalid,
	regExpired:   domain.RegistrationExpired,
}

// Outcomes a completed organization screening reports; they are the
// sanctions statuses of the same names.
const (
	scrClear       = string(domain.SanctionsClear)
	scrHit         = string(domain.SanctionsHit)
	scrNeedsReview = string(domain.SanctionsNeedsReview)
)
