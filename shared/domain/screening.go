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
	Result          map[string]any
	ProviderStatus  string
	SanctionsStatus SanctionsStatus
	Score           *Score
	At              time.Time
	// ReceiptTTL is how long the webhook id is remembered.
	ReceiptTTL time.Duration
	// Evidence is the webhook's raw body, kept as the check's evidence.
	Evidence *Evidence
}

// Validate checks what the write relies on: the webhook's identity (its
// receipt makes a repeat a no-op) and the records it changes.
func (u ScreeningUpdate) Validate() error {
	switch {
	case u.Provider == "" || u.WebhookID == "":
		return errors.New("screening update: provider and webhook id are required")
	case u.Check.ID == 0 || u.Entity.ID == 0:
		return errors.New("screening update: the check and the entity are required")
	}
	return nil
}
