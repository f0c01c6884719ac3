package store

import (
	"context"
	"maps"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// screeningReview is the review a screening update opens, as ApplyScreening
// writes it; the zero value (no review) writes nothing.
type screeningReview struct {
	s      *Store
	review *domain.Review
	audit  *domain.AuditRecord
	// entity is the review's entity as the update read it: its name and
	// country are the queue's copies.
	entity domain.Entity
	// recAt is the audit record's index in the transaction.
	recAt int
}

// openedByScreening prepares the review u opens, if any: its id reserved and
// named by its audit record, the entity update moved to under_monitoring,
// counting one review more and conditioned on the dossier's revision. Each attempt reserves an id of its own, as a
// decision's does.
func (s *Store) openedByScreening(ctx context.Context, u domain.ScreeningUpdate, entity *dynamo.Update) (screeningReview, error) {
	if u.Opens == nil {
		return screeningReview{}, nil
	}
	next, err := s.nextAccountIDs(ctx, u.Entity.AccountID, map[string]int{seqReview: 1})
	if err != nil {
		return screeningReview{}, err
	}
	r, a := u.Opens.Review, u.Opens.Audit
	r.ID = next[seqReview]
	a.ReviewID = &r.ID
	a.After = maps.Clone(a.After)
	if a.After == nil {
		a.After = map[string]any{}
	}
	a.After["review_id"] = r.ID
	// Opened on the dossier as read: a review that started, finished or
	// opened since (each moves the revision) makes the answer read again.
	entity.Set("status", string(domain.EntityUnderMonitoring)).Add("reviews_count", 1).
		If("(dossier_rev = ? OR (attribute_not_exists(dossier_rev) AND ? = ?))", u.Entity.DossierRev, u.Entity.DossierRev, int64(0))
	// After the receipt, the check and the entity: the evidence's item
	// comes between when it is kept.
	recAt := 3
	if u.Evidence != nil && u.Evidence.Stored {
		recAt++
	}
	return screeningReview{s: s, review: &r, audit: &a, entity: u.Entity, recAt: recAt}, nil
}

// record is the audit record to chain, nil when no review opens.
func (o screeningReview) record() *domain.AuditRecord { return o.audit }

// add puts the audit record rec, the review and the queue's counts.
func (o screeningReview) add(tx *dynamo.WriteTx, rec *dynamo.Put) {
	if o.review == nil {
		return
	}
	s, r := o.s, *o.review
	tx.Put(rec)
	tx.Put(s.table(schema.Reviews).Put(newReviewItem(r).of(&o.entity)).If("attribute_not_exists(review_id)"))
	s.addQueueCounts(tx, r.AccountID, createdDelta([]domain.Review{r}))
}

// recordSeen reports whether err is the transaction failing on the audit
// record alone being there already: the review was opened before.
func (o screeningReview) recordSeen(err error) bool {
	return o.review != nil && cancelledAt(err, o.recAt)
}
