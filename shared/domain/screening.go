package domain

import (
	"errors"
	"time"
)

// ScreeningUpdate is a screening provider's later answer for a check, as
// the provider webhook applies it.
type ScreeningUpdate struct {
	Provider  string
	WebhookID string
	Reference string
	// The check and the entity as read before the update: the write is
	// conditioned on neither having changed since.
	Check  Check
	Entity Entity
	// What changes.
	Result         map[string]any
	ProviderStatus string
	// Answered is what the answer says of the check's subject; SanctionsStatus
	// is the entity's after it. They differ for a party's screening: the
	// entity's own status follows its own screening only, and the party's
	// answer stands in its check.
	Answered        SanctionsStatus
	SanctionsStatus SanctionsStatus
	Score           *Score
	At              time.Time
	// ReceiptTTL is how long the webhook id is remembered.
	ReceiptTTL time.Duration
	// Evidence is the webhook's raw body, kept as the check's evidence.
	Evidence *Evidence
	// New, for an answer to a check already complete, is the check the
	// answer is written as (its id reserved, the result, the changes against
	// the previous one): Check is left as it was, evidence and all, and the
	// entity counts one check more.
	New *Check
	// Opens, when set, is the review the answer opens (OpensReview), with
	// its audit record, written in the same transaction: the entity counts
	// it and is under monitoring after.
	Opens *MonitoringReview
}

// Validate checks what the write relies on: the webhook's identity (its
// receipt makes a repeat a no-op) and the records it changes.
func (u ScreeningUpdate) Validate() error {
	switch {
	case u.Provider == "" || u.WebhookID == "":
		return errors.New("screening update: provider and webhook id are required")
	case u.Check.ID == 0 || u.Entity.ID == 0:
		return errors.New("screening update: the check and the entity are required")
	case u.New != nil && (u.New.ID == 0 || u.New.ID == u.Check.ID):
		return errors.New("screening update: a new check needs an id of its own (ReserveCheckIDs)")
	case u.Opens != nil && (u.Opens.Review.EntityID != u.Entity.ID || u.Opens.Audit.ActionID == "" || u.Opens.Audit.EntityID != u.Entity.ID):
		return errors.New("screening update: the review it opens, and its audit record, must be the entity's")
	}
	return nil
}
