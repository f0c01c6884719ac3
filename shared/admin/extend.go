package admin

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/auditexport"
)

// AuditExtendView is audit.extend's answer: what the one-off run did
// (auditexport.ExtendResult).
type AuditExtendView = auditexport.ExtendResult

// auditExtend is the one-off run, after the deployment that dates each
// object: every locked copy of the account (none or 0: of every account)
// still needed is written again locked to its law's date
// (auditexport.ExtendLocks). It writes no audit record: it changes no
// record, only how long a copy of one is kept, as the daily run's
// renewals.
func (h *Handler) auditExtend(ctx context.Context, c *call) (any, error) {
	id, err := h.exporterAccount(ctx, c)
	if err != nil {
		return nil, err
	}
	return h.Exporter.ExtendLocks(ctx, id)
}

// exporterAccount reads a records command's account (0: every account),
// one the store holds, and refuses it where no records bucket is
// configured.
func (h *Handler) exporterAccount(ctx context.Context, c *call) (int64, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"min=0"`
	}
	if err := decode(c, &p); err != nil {
		return 0, err
	}
	if h.Exporter == nil {
		return 0, fmt.Errorf("%s: no records bucket is configured", p.Command)
	}
	if p.AccountID != 0 {
		if _, err := h.account(ctx, p.AccountID); err != nil {
			return 0, err
		}
	}
	return p.AccountID, nil
}
