package store

import (
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// filterQueue narrows a query of the by_queue index to the reviews q wants,
// by what the review items hold (a FilterExpression: the items it drops are
// read and paid for, but not returned).
func filterQueue(query *dynamo.Query, q domain.QueueQuery) *dynamo.Query {
	if q.Status != "" {
		query.Filter("$ = ?", "status", string(q.Status))
	}
	if q.Purpose != "" {
		query.Filter("$ = ?", "purpose", string(q.Purpose))
	}
	switch {
	case q.Unassigned:
		query.Filter("attribute_not_exists($)", "assigned_user_id")
	case q.AssignedTo != 0:
		query.Filter("$ = ?", "assigned_user_id", q.AssignedTo)
	}
	if q.Escalated != nil {
		if *q.Escalated {
			query.Filter("$ = ?", "escalation", domain.EscalationAML)
		} else {
			query.Filter("attribute_not_exists($) OR $ <> ?", "escalation", "escalation", domain.EscalationAML)
		}
	}
	if q.Country != "" {
		query.Filter("$ = ?", "entity_country", q.Country)
	}
	return query
}

// filtersReviews reports whether q narrows the reviews themselves, so that
// not every item a query reads is returned.
func filtersReviews(q domain.QueueQuery) bool {
	return q.Status != "" || q.Purpose != "" || q.Unassigned || q.AssignedTo != 0 || q.Escalated != nil || q.Country != ""
}

// filtersEntities reports whether q narrows by what only the entity holds.
func filtersEntities(q domain.QueueQuery) bool { return q.Risk != "" || q.Sanctions != "" }

// entityMatches reports whether an entry's entity is one q wants; an entry
// whose entity was not found matches no entity filter.
func entityMatches(q domain.QueueQuery, e domain.QueueEntry, found bool) bool {
	if !filtersEntities(q) {
		return true
	}
	return found && (q.Risk == "" || e.Risk == q.Risk) && (q.Sanctions == "" || e.Sanctions == q.Sanctions)
}
