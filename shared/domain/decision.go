package domain

import "errors"

// Decision is everything one operator action writes. Review and Entity are
// the new states of records read at the versions they carry; the write
// fails with ErrStale if either changed meanwhile. A decision that changes
// a review, a check or the entity moves the dossier of the entity it is on
// (Audit.EntityID) to its next revision.
type Decision struct {
	Audit AuditRecord
	// Also are further records of the same change, as the actions it
	// stands for (a queue claim: its assign, then its start): appended
	// after Audit in its chain, in the same transaction. Each names
	// Audit's account and entity and an action id of its own.
	Also []AuditRecord
	// Review is the changed review (nil when the action changes none).
	Review *Review
	// ReviewWas is Review's status as read: the store moves the queue's
	// counts from it to Review's in the same write, which fails with
	// ErrStale unless the review still has it. Left empty, the store reads it.
	ReviewWas ReviewStatus
	// Entity is the changed entity (nil when the action changes none).
	Entity *Entity
	// NewReview is a review the action opens (nil for none).
	NewReview *Review
	// Pinned is the entity as read for a decision bound to a view
	// (decisions.Request.Seen): the write fails with ErrStale if its dossier
	// moved past the revision read (another decision, a screening result, a
	// change to any of its reviews or checks), so the dossier compared is the
	// one decided on.
	Pinned *Entity
	// NewChecks are checks the action ran, with ids reserved beforehand
	// (they were named to providers before being written).
	NewChecks []Check
	// Signed are the signatures the decision consumes: their ceremonies are
	// deleted and their passkeys' counters moved on, conditioned on the
	// values read, in the decision's own transaction (a four-eyes maker's,
	// spent while the decision waited, by taking its pending approval), so
	// a signature is used once, with the decision, or not at all.
	Signed []SignatureUse
}

// Validate checks what the write relies on: an action to record, once per
// id, and checks that already have their ids.
func (d Decision) Validate() error {
	if d.Audit.AccountID == 0 || d.Audit.ActionID == "" {
		return errors.New("decision: the audit record needs an account and an action id")
	}
	if d.Audit.EntityID == 0 && (d.Review != nil || d.NewReview != nil || len(d.NewChecks) > 0 || d.Pinned != nil) {
		return errors.New("decision: the audit record must name the entity whose dossier it changes")
	}
	for _, a := range d.Also {
		if a.AccountID != d.Audit.AccountID || a.EntityID != d.Audit.EntityID || a.ActionID == "" || a.ActionID == d.Audit.ActionID {
			return errors.New("decision: a further audit record needs the account and entity of the first and an action id of its own")
		}
	}
	for _, c := range d.NewChecks {
		if c.ID == 0 {
			return errors.New("decision: new checks need reserved ids (ReserveCheckIDs)")
		}
	}
	return nil
}
