package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// ApplyDecision writes a decision in one transaction: the audit record
// (once per action id), the review and entity at their next versions, any
// review or checks it creates, and the queue's counts for a review it
// creates or whose status it changes (from d.ReviewWas, read here when
// the caller left it empty).
func (s *Store) ApplyDecision(ctx context.Context, d domain.Decision) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.Review != nil && d.ReviewWas == "" {
		was, err := s.reviewStatusAt(ctx, *d.Review)
		if err != nil {
			return err
		}
		d.ReviewWas = was
	}
	if d.NewReview != nil {
		next, err := s.nextAccountIDs(ctx, d.Audit.AccountID, map[string]int{seqReview: 1})
		if err != nil {
			return err
		}
		id := next[seqReview]
		d.NewReview.ID = id
		if d.Audit.After == nil {
			d.Audit.After = map[string]any{}
		}
		d.Audit.After["review_id"] = id
	}
	counts := queueDelta{}
	if r := d.NewReview; r != nil {
		counts.add(r.ID, r.Status, 1)
	}
	if r := d.Review; r != nil {
		counts.move(r.ID, d.ReviewWas, r.Status)
	}
	// The entity as the decision has it, whose country and name the queue
	// shows: a review-only decision has none and keeps the review's copies.
	about := d.Entity
	if about == nil {
		about = d.Pinned
	}
	// Of two decisions on one entity at once, the loser fails on the
	// review's or entity's version whatever the chain's head says: it sees
	// domain.ErrStale (auditTx retries only appends that lost the head).
	var signatures int // the writes of d.Signed, right after the record
	err := s.auditTxAll(ctx, d.Audit, d.Also, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(rec)
		signatures = s.signatureWrites(tx, d)
		if d.NewReview != nil {
			tx.Put(s.table(schema.Reviews).Put(newReviewItem(*d.NewReview).of(about)).If("attribute_not_exists(review_id)"))
		}
		for _, c := range d.NewChecks {
			tx.Put(s.table(schema.Checks).Put(newCheckItem(c)).If("attribute_not_exists(check_id)"))
		}
		if r := d.Review; r != nil {
			next := *r
			next.Version = r.Version + 1
			// Conditioned on the status too: the counts move from it.
			tx.Update(s.reviewUpdate(newReviewItem(next).of(about)).
				If("attribute_exists(review_id) AND (version = ? OR (attribute_not_exists(version) AND ? = ?)) AND $ = ?",
					r.Version, r.Version, int64(0), "status", string(d.ReviewWas)))
		}
		if u := s.dossierUpdate(d); u != nil {
			tx.Update(u)
		}
		s.addEvidencePuts(tx, d.NewChecks, retainedFields{}) // dated after, with the rest (decisions.expireEntity)
		s.addQueueCounts(tx, d.Audit.AccountID, counts)
	})
	switch {
	case err == nil:
		if d.Review != nil {
			d.Review.Version++
		}
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case signatureRefused(err, signatures):
		return domain.ErrSignatureUsed
	case isTxCondFailed(err) || isTxConflict(err):
		return domain.ErrStale
	default:
		return fmt.Errorf("apply %s on account %d: %w", d.Audit.Action, d.Audit.AccountID, err)
	}
}

// reviewStatusAt is the stored status of r, for a decision that did not say
// it: domain.ErrStale when the review is gone or no longer at r's version,
// as the decision's write would find it.
func (s *Store) reviewStatusAt(ctx context.Context, r domain.Review) (domain.ReviewStatus, error) {
	stored, err := s.Review(ctx, r.AccountID, r.ID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return "", domain.ErrStale
	case err != nil:
		return "", err
	case stored.Version != r.Version:
		return "", domain.ErrStale
	}
	return stored.Status, nil
}

// dossierUpdate is the decision's write to the entity's item: a decision
// that changes the entity's dossier (a review, a check or the entity) moves
// it to its next revision, and a changed entity is written at its next
// version, on the revision it was read at; a decision bound to a view
// (Pinned) finds the dossier at the revision that view showed, or fails. nil for a decision that changes
// nothing shown and is bound to no view (an audit record alone).
func (s *Store) dossierUpdate(d domain.Decision) *dynamo.Update {
	changes := d.Entity != nil || d.Review != nil || d.NewReview != nil || len(d.NewChecks) > 0
	if !changes && d.Pinned == nil {
		return nil
	}
	var u *dynamo.Update
	if e := d.Entity; e != nil {
		u = s.entityUpdate(*e)
	} else {
		u = nextDossierRev(s.table(schema.Entities).Update("account_id", d.Audit.AccountID).Range("entity_id", d.Audit.EntityID)).
			If("attribute_exists(entity_id)")
	}
	// A changed entity is written whole from the entity as read (status,
	// counts, score): it must find the dossier as read, or a screening
	// result that landed meanwhile (which moves neither the version nor the
	// decision's review) would be written over. A bound decision pins it
	// even when it changes only a review.
	pin := d.Pinned
	if pin == nil {
		pin = d.Entity
	}
	if pin != nil {
		u.If("(dossier_rev = ? OR (attribute_not_exists(dossier_rev) AND ? = ?))", pin.DossierRev, pin.DossierRev, int64(0))
	}
	return u
}

// entityUpdate sets every field an operator action may change, at the
// entity's next version and dossier revision.
func (s *Store) entityUpdate(e domain.Entity) *dynamo.Update {
	u := nextDossierRev(setUpdatedAt(s.table(schema.Entities).Update("account_id", e.AccountID).Range("entity_id", e.ID), fmtTime(e.UpdatedAt))).
		Set("status", string(e.Status)).
		Set("legal_name", e.LegalName).
		Set("registration_status", string(e.RegistrationStatus)).
		Set("sanctions_status", string(e.SanctionsStatus)).
		Set("checks_count", e.ChecksCount).
		Set("reviews_count", e.ReviewsCount).
		Set("version", e.Version+1).
		If("attribute_exists(entity_id) AND (version = ? OR (attribute_not_exists(version) AND ? = ?))", e.Version, e.Version, int64(0))
	if len(e.Names) > 0 {
		u.Set("names", entityNameItems(e.Names))
	}
	if len(e.Parties) > 0 {
		u.Set("parties", partyItems(e.Parties)).Set("current_relationships_count", domain.CurrentParties(e.Parties))
	}
	if e.Ownership != nil {
		u.Set("ownership", newOwnershipItem(e.Ownership))
	}
	if e.Score != nil {
		u.Set("current_score", e.Score.Value).Set("score_breakdown", scoreComponentItems(e.Score.Breakdown))
	} else {
		u.Remove("current_score", "score_breakdown")
	}
	if e.Risk != nil {
		u.Set("risk_level", string(e.Risk.Level)).Set("risk_level_updated_at", fmtTime(e.Risk.AssessedAt))
	} else {
		u.Remove("risk_level", "risk_level_updated_at")
	}
	optional := map[string]*string{"website_url": e.WebsiteURL, "social_url": e.SocialURL, "business_activity_summary": e.ActivitySummary}
	keys := make([]string, 0, len(optional))
	for k := range optional {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := optional[k]; v != nil {
			u.Set(k, *v)
		} else {
			u.Remove(k)
		}
	}
	// The adjudicated matches, each list in order.
	for _, m := range []struct {
		name string
		ids  []string
	}{{"dismissed_matches", e.DismissedMatches}, {"confirmed_matches", e.ConfirmedMatches}} {
		if len(m.ids) > 0 {
			u.SetSet(m.name, m.ids)
		} else {
			u.Remove(m.name)
		}
	}
	// Once ended, a relationship stays ended: never removed.
	if e.RelationshipEndedAt != nil && e.RetainUntil != nil {
		u.Set("relationship_ended_at", fmtTime(*e.RelationshipEndedAt)).Set("retain_until", fmtTime(*e.RetainUntil))
	}
	return u
}
