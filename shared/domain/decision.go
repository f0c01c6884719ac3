package domain

import "errors"

// Decision is everything one operator action writes. Review and Entity are
// the new states of records read at the versions they carry; the write
// fails with ErrStale if either changed meanwhile.
type Decision struct {
	Audit AuditRecord
	// Review is the changed review (nil when the action changes none).
	Review *Review
	// Entity is the changed entity (nil when the action changes none).
	Entity *Entity
	// NewReview is a review the action opens (nil for none).
	NewReview *Review
	// Pinned is the entity as read for a decision bound to a view
	// (decisions.Request.Seen): the write fails with ErrStale if its version
	// or updated_at moved since (another decision, a screening result), so
	// the dossier compared is the one decided on.
	Pinned *Entity
	// PinnedReviews are the entity's other reviews as read for a decision
	// bound to a view: the write fails with ErrStale if any moved (a
	// decision on one of them changes neither this review nor the entity).
	PinnedReviews []Review
	// NewChecks are checks the action ran, with ids reserved beforehand
	// (they were named to providers before being written).
	NewChecks []Check
}

// Validate checks what the write relies on: an action to record, once per
// id, and checks that already have their ids.
func (d Decision) Validate() error {
	if d.Audit.AccountID == 0 || d.Audit.ActionID == "" {
		return errors.New("decision: the audit record needs an account and an action id")
	}
	for _, c := range d.NewChecks {
		if c.ID == 0 {
			return errors.New("decision: new checks need reserved ids (ReserveCheckIDs)")
		}
	}
	return nil
}
