package domain

import "time"

// Legal holds: while one stands on an entity, nothing of it expires — its
// items lose their expiry and its locked records an S3 legal hold — until
// an administrator releases it (an investigation, a court order).
const (
	ActionLegalHoldSet     Action = "legal_hold.set"
	ActionLegalHoldRelease Action = "legal_hold.release"
)

// LegalHold is a hold on one entity of an account.
type LegalHold struct {
	AccountID int64
	EntityID  int64
	Reason    string
	// SetBy is who placed it (the command's actor), ActionID the change.
	SetBy    string
	ActionID string
	SetAt    time.Time
}
