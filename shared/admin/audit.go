package admin

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// maxAudit bounds one account-wide listing.
const maxAudit = 1000

// auditList lists an entity's trail (entity_id, oldest first) or the
// account's (newest first, at most limit, default 100).
func (h *Handler) auditList(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id"`
		EntityID  int64 `json:"entity_id"`
		Limit     int   `json:"limit"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	if p.EntityID < 0 {
		return nil, domain.Invalid("entity_id", "must be a positive entity id")
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	if p.Limit < 1 || p.Limit > maxAudit {
		return nil, domain.Invalid("limit", fmt.Sprintf("must be between 1 and %d", maxAudit))
	}
	var recs []domain.AuditRecord
	var err error
	if p.EntityID > 0 {
		recs, err = h.Store.AuditTrail(ctx, p.AccountID, p.EntityID)
	} else {
		recs, err = h.Store.AccountAudit(ctx, p.AccountID, p.Limit)
	}
	if err != nil {
		return nil, err
	}
	out := make([]AuditView, 0, len(recs))
	for _, r := range recs {
		out = append(out, viewAudit(r))
	}
	return map[string]any{"audit": out}, nil
}
