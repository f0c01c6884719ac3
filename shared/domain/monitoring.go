package domain

import "time"

// MonitoringReview is a review a screening answer opens for an entity under
// ongoing monitoring that had none active, with the audit record of its
// opening. The store gives the review its id and names it in the record
// (ReviewID, After["review_id"]).
type MonitoringReview struct {
	Review Review
	Audit  AuditRecord
}

// DueNow reports whether the review is due the moment it opens: one a
// screening answer opened (TriggeringReason TriggerProviderUpdate), which
// calls for action within hours, whatever the SLA of its purpose.
func (r Review) DueNow() bool { return r.TriggeringReason == TriggerProviderUpdate }

// urgentSince is the time the queue places reviews due now at: before any
// review's creation, so they come first in the queue's default order (oldest
// first), among themselves by id (the oldest alert first).
var urgentSince = time.Unix(0, 0).UTC()

// QueuePositionOf is the review's place in its account's queue: by its
// creation (QueuePosition), or, for a review due now, at the head of the
// queue. Either is a position ParseQueuePosition reads.
func QueuePositionOf(r Review) string {
	if r.DueNow() {
		return QueuePosition(urgentSince, r.ID)
	}
	return QueuePosition(r.CreatedAt, r.ID)
}
