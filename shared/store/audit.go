package store

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// auditItem is an audit record as the audit table stores it: one per action
// id, found by entity (entity_key) and time (at_key) through by_entity_time.
// An account's own actions (no entity) stay out of that index.
type auditItem struct {
	// Its place in its chain (audit_chain.go).
	auditChainFields
	AccountID        int64  `dynamo:"account_id,hash"`
	ActionID         string `dynamo:"action_id,range"`
	EntityKey        string `dynamo:"entity_key,omitempty"`
	AtKey            string `dynamo:"at_key"`
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
	// The dossier's ETag the operator saw and the one decided on.
	SeenETag    string `dynamo:"seen_etag,omitempty"`
	DossierETag string `dynamo:"dossier_etag,omitempty"`
	// The SHA-256 of the dossier's Markdown decided on, and the Markdown.
	DossierSHA256 string `dynamo:"dossier_sha256,omitempty"`
	DossierMD     string `dynamo:"dossier_md,omitempty"`
	// How the decision's operator is known, the document signed and the
	// signatures over it (JSON: domain.DecisionSignature, in order), all
	// in the chain's hash.
	Identity         string `dynamo:"identity,omitempty"`
	DecisionDocument string `dynamo:"decision_document,omitempty"`
	Signatures       string `dynamo:"signatures,omitempty"`
}

func newAuditItem(a domain.AuditRecord) auditItem {
	before, _ := json.Marshal(a.Before)
	after, _ := json.Marshal(a.After)
	var ek string
	if a.EntityID != 0 {
		ek = entityKey(a.AccountID, a.EntityID)
	}
	return auditItem{
		AccountID: a.AccountID, ActionID: a.ActionID,
		EntityKey: ek, AtKey: fmtTime(a.At) + "#" + a.ActionID,
		Action: string(a.Action), OperatorID: a.OperatorID, OperatorName: a.OperatorName,
		Actor: a.Actor, RequestID: a.RequestID,
		SecondApproverID: a.SecondApproverID, ReviewID: a.ReviewID, EntityID: a.EntityID, Reason: a.Reason,
		Before: string(before), After: string(after), At: fmtTime(a.At),
		SeenETag: a.SeenETag, DossierETag: a.DossierETag, DossierSHA256: a.DossierSHA256, DossierMD: a.DossierMarkdown,
		Identity: string(a.Identity), DecisionDocument: a.DecisionDocument, Signatures: signaturesJSON(a.Signatures),
	}
}

// signaturesJSON is the signatures as the record keeps and hashes them;
// none is the empty string, so records without any hash as before.
func signaturesJSON(sigs []domain.DecisionSignature) string {
	if len(sigs) == 0 {
		return ""
	}
	b, _ := json.Marshal(sigs) // strings and numbers only
	return string(b)
}

func (it auditItem) domain() domain.AuditRecord {
	a := domain.AuditRecord{
		AccountID: it.AccountID, ActionID: it.ActionID, Action: domain.Action(it.Action), OperatorID: it.OperatorID,
		OperatorName: it.OperatorName, Actor: it.Actor, RequestID: it.RequestID, SecondApproverID: it.SecondApproverID, ReviewID: it.ReviewID, EntityID: it.EntityID,
		Reason: it.Reason, At: parseTime(it.At), SeenETag: it.SeenETag, DossierETag: it.DossierETag,
		DossierSHA256: it.DossierSHA256, DossierMarkdown: it.DossierMD,
		Identity: domain.Identity(it.Identity), DecisionDocument: it.DecisionDocument,
	}
	if it.Signatures != "" {
		json.Unmarshal([]byte(it.Signatures), &a.Signatures)
	}
	json.Unmarshal([]byte(it.Before), &a.Before)
	json.Unmarshal([]byte(it.After), &a.After)
	return a
}

// AuditTrail returns an entity's audit records, oldest first. It is for
// operators, and reads a global index: a record written a moment ago may be
// missing yet (AuditRecord reads one action's consistently).
func (s *Store) AuditTrail(ctx context.Context, accountID, entityID int64) ([]domain.AuditRecord, error) {
	var items []auditItem
	err := s.table(schema.Audit).Get("entity_key", entityKey(accountID, entityID)).
		Index(schema.AuditByEntity).All(ctx, &items)
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
	if strings.HasPrefix(actionID, headPrefix) {
		// A chain's head, not an action.
		return domain.AuditRecord{}, domain.Errorf(domain.ECodeNotFound, "Action not found.")
	}
	err := s.table(schema.Audit).Get("account_id", accountID).Range("action_id", dynamo.Equal, actionID).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.AuditRecord{}, wrap(notFound(err, "Action"), "get action %s", actionID)
	}
	return it.domain(), nil
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
	items = withoutHeads(items)
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	out := make([]domain.AuditRecord, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}
