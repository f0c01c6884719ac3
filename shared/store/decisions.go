package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

type auditItem struct {
	AccountID        int64  `dynamo:"account_id,hash"`
	ActionID         string `dynamo:"action_id,range"`
	EntityTime       string `dynamo:"entity_time"`
	Action           string `dynamo:"action"`
	OperatorID       int64  `dynamo:"operator_id"`
	OperatorName     string `dynamo:"operator_name"`
	Actor            string `dynamo:"actor,omitempty"`
	RequestID        string `dynamo:"request_id,omitempty"`
	SecondApproverID *int64 `dynamo:"second_approver_id,omitempty"`
	ReviewID         *int64 `dynamo:"review_id,omitempty"`
	EntityID         int64  `dynamo:"entity_id"`
	Reason           string `dynamo:"reason,omitempty"`
	// Before and after are JSON documents: their shapes vary by action.
	Before string `dynamo:"before"`
	After  string `dynamo:"after"`
	At     string `dynamo:"at"`
}

func newAuditItem(a domain.AuditRecord) auditItem {
	before, _ := json.Marshal(a.Before)
	after, _ := json.Marshal(a.After)
	return auditItem{
		AccountID: a.AccountID, ActionID: a.ActionID,
		EntityTime: fmt.Sprintf("%012d#%s#%s", a.EntityID, fmtTime(a.At), a.ActionID),
		Action:     string(a.Action), OperatorID: a.OperatorID, OperatorName: a.OperatorName,
		Actor: a.Actor, RequestID: a.RequestID,
		SecondApproverID: a.SecondApproverID, ReviewID: a.ReviewID, EntityID: a.EntityID, Reason: a.Reason,
		Before: string(before), After: string(after), At: fmtTime(a.At),
	}
}

func (it auditItem) domain() domain.AuditRecord {
	a := domain.AuditRecord{
		AccountID: it.AccountID, ActionID: it.ActionID, Action: domain.Action(it.Action), OperatorID: it.OperatorID,
		OperatorName: it.OperatorName, Actor: it.Actor, RequestID: it.RequestID, SecondApproverID: it.SecondApproverID, ReviewID: it.ReviewID, EntityID: it.EntityID,
		Reason: it.Reason, At: parseTime(it.At),
	}
	json.Unmarshal([]byte(it.Before), &a.Before)
	json.Unmarshal([]byte(it.After), &a.After)
	return a
}

// ApplyDecision writes a decision in one transaction: the audit record
// (once per action id), the review and entity at their next versions, and
// any review or checks it creates.
func (s *Store) ApplyDecision(ctx context.Context, d domain.Decision) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.NewReview != nil {
		id, err := s.nextIDs(ctx, seqReview, 1)
		if err != nil {
			return err
		}
		d.NewReview.ID = id
		if d.Audit.After == nil {
			d.Audit.After = map[string]any{}
		}
		d.Audit.After["review_id"] = id
	}
	tx := s.db.WriteTx()
	tx.Put(s.table(schema.Audit).Put(newAuditItem(d.Audit)).If("attribute_not_exists(action_id)"))
	if d.NewReview != nil {
		tx.Put(s.table(schema.Reviews).Put(newReviewItem(*d.NewReview)).If("attribute_not_exists(review_id)"))
	}
	for _, c := range d.NewChecks {
		tx.Put(s.table(schema.Checks).Put(newCheckItem(c)).If("attribute_not_exists(check_id)"))
	}
	if r := d.Review; r != nil {
		next := *r
		next.Version = r.Version + 1
		tx.Put(s.table(schema.Reviews).Put(newReviewItem(next)).
			If("attribute_exists(review_id) AND (version = ? OR (attribute_not_exists(version) AND ? = ?))", r.Version, r.Version, int64(0)))
	}
	if e := d.Entity; e != nil {
		tx.Update(s.entityUpdate(*e))
	}
	err := tx.Run(ctx)
	switch {
	case err == nil:
		if d.Review != nil {
			d.Review.Version++
		}
		return nil
	case cancelledAt(err, 0):
		return domain.ErrDuplicateAction
	case isTxCondFailed(err) || isTxConflict(err):
		return domain.ErrStale
	default:
		return fmt.Errorf("apply %s on account %d: %w", d.Audit.Action, d.Audit.AccountID, err)
	}
}

// entityUpdate sets every field an operator action may change, at the
// entity's next version.
func (s *Store) entityUpdate(e domain.Entity) *dynamo.Update {
	u := s.table(schema.Entities).Update("account_id", e.AccountID).Range("entity_id", e.ID).
		Set("status", string(e.Status)).
		Set("legal_name", e.LegalName).
		Set("registration_status", string(e.RegistrationStatus)).
		Set("sanctions_status", string(e.SanctionsStatus)).
		Set("checks_count", e.ChecksCount).
		Set("reviews_count", e.ReviewsCount).
		Set("updated_at", fmtTime(e.UpdatedAt)).
		Set("version", e.Version+1).
		If("attribute_exists(entity_id) AND (version = ? OR (attribute_not_exists(version) AND ? = ?))", e.Version, e.Version, int64(0))
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
	if len(e.DismissedMatches) > 0 {
		u.SetSet("dismissed_matches", e.DismissedMatches)
	} else {
		u.Remove("dismissed_matches")
	}
	return u
}

// AuditTrail returns an entity's audit records, oldest first.
func (s *Store) AuditTrail(ctx context.Context, accountID, entityID int64) ([]domain.AuditRecord, error) {
	var items []auditItem
	err := s.table(schema.Audit).Get("account_id", accountID).
		Range("entity_time", dynamo.BeginsWith, fmt.Sprintf("%012d#", entityID)).
		Index(schema.AuditByEntity).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err, "audit trail of entity %d", entityID)
	}
	out := make([]domain.AuditRecord, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

// AuditRecord returns the record of one action, if it was applied.
func (s *Store) AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error) {
	var it auditItem
	err := s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.Equal, actionID).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.AuditRecord{}, wrap(notFound(err, "Action"), "get action %s", actionID)
	}
	return it.domain(), nil
}

// auditPut writes an audit record once per action id, as part of a
// transaction.
func (s *Store) auditPut(a domain.AuditRecord) *dynamo.Put {
	return s.table(schema.Audit).Put(newAuditItem(a)).If("attribute_not_exists(action_id)")
}

// AccountAudit returns the account's audit records, newest first, at most
// limit. It reads the account's whole trail, so it is for operators' tools.
func (s *Store) AccountAudit(ctx context.Context, accountID int64, limit int) ([]domain.AuditRecord, error) {
	var items []auditItem
	err := s.table(schema.Audit).Get("account_id", accountID).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err, "audit trail of account %d", accountID)
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].At != items[j].At {
			return items[i].At > items[j].At
		}
		return items[i].ActionID > items[j].ActionID
	})
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	out := make([]domain.AuditRecord, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}
