package admin

import (
	"context"
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// Legal holds (legal_hold.set, .release, .list): while one stands on an
// entity, nothing of it expires. Its items (the entity, its checks,
// evidence, reviews, audit records and webhook deliveries) lose their
// expiry, kept aside and put back on release (store.HoldEntity), and every
// locked copy of its records in the records bucket gets an S3 legal hold,
// which no one can delete past until it is lifted. Only the admin function
// may place or lift one.

type holdFields struct {
	common
	AccountID int64  `json:"account_id" strict:"id"`
	EntityID  int64  `json:"entity_id" strict:"id"`
	Reason    string `json:"reason"`
}

// LegalHoldView is a hold, and what setting or releasing it reached.
type LegalHoldView struct {
	AccountID int64  `json:"account_id"`
	EntityID  int64  `json:"entity_id"`
	Reason    string `json:"reason,omitempty"`
	SetBy     string `json:"set_by,omitempty"`
	SetAt     string `json:"set_at,omitempty"`
	ActionID  string `json:"action_id,omitempty"`
	// Held says whether the hold stands after the command.
	Held bool `json:"held"`
	// Already: the entity was held (set) or not held (release) before: the
	// command applied the hold's effects again and changed nothing else.
	Already bool `json:"already,omitempty"`
	// Items counts the entity's DynamoDB items whose expiry the command
	// took off or put back (none when run again), Objects the locked
	// copies it reached.
	Items   int `json:"items"`
	Objects int `json:"objects"`
}

func (h *Handler) legalHoldSet(ctx context.Context, c *call) (any, error) {
	return h.legalHold(ctx, c, true)
}

func (h *Handler) legalHoldRelease(ctx context.Context, c *call) (any, error) {
	return h.legalHold(ctx, c, false)
}

// legalHold places (on) or lifts a hold, audited in the entity's chain,
// then applies it to the entity's evidence items and locked copies. Run
// again, it applies it again: a run cut short is finished by the next.
func (h *Handler) legalHold(ctx context.Context, c *call, on bool) (any, error) {
	var p holdFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if err := freetext.Check("reason", p.Reason, freetext.Reason, true); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	ent, err := h.Store.Entity(ctx, p.AccountID, p.EntityID)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "entity", p.EntityID)
	}
	action := domain.ActionLegalHoldRelease
	if on {
		action = domain.ActionLegalHoldSet
	}
	audit := c.audit(p.AccountID, action, nil, map[string]any{"entity_id": p.EntityID, "reason": p.Reason})
	audit.EntityID, audit.Reason = p.EntityID, p.Reason
	v := LegalHoldView{AccountID: p.AccountID, EntityID: p.EntityID, Reason: p.Reason, Held: on, ActionID: c.ActionID}
	if on {
		v.SetBy, v.SetAt = c.Actor, domain.FormatTime(c.now)
		err = h.Store.PutLegalHold(ctx, domain.LegalHold{AccountID: p.AccountID, EntityID: p.EntityID, Reason: p.Reason,
			SetBy: c.Actor, ActionID: c.ActionID, SetAt: c.now}, audit)
		if v.Already = domain.ErrorCode(err) == domain.ECodeConflict; v.Already {
			// One hold an entity: the answer is the one that stands (its
			// reason, who set it and when), not the one asked for.
			if v, err = h.standingHold(ctx, v); err != nil {
				return nil, err
			}
		}
	} else {
		err = h.Store.DeleteLegalHold(ctx, p.AccountID, p.EntityID, audit)
		v.Already = domain.ErrorCode(err) == domain.ECodeNotFound
	}
	// The same command again (a retried invocation, its action id applied
	// already): apply its effects again, which finishes a run cut short.
	v.Already = v.Already || errors.Is(err, domain.ErrDuplicateAction)
	if err != nil && !v.Already {
		return nil, err
	}
	if v.Items, v.Objects, err = h.applyHold(ctx, ent, on, c.ActionID); err != nil {
		return nil, fmt.Errorf("legal hold on entity %d: recorded, not yet applied whole (run the command again): %w", p.EntityID, err)
	}
	return map[string]any{"legal_hold": v}, nil
}

// standingHold is v with the reason, setter, time and action of the hold
// that stands on its entity.
func (h *Handler) standingHold(ctx context.Context, v LegalHoldView) (LegalHoldView, error) {
	holds, err := h.Store.LegalHolds(ctx, v.AccountID)
	if err != nil {
		return v, err
	}
	for _, x := range holds {
		if x.EntityID == v.EntityID {
			v.Reason, v.SetBy, v.SetAt, v.ActionID = x.Reason, x.SetBy, domain.FormatTime(x.SetAt), x.ActionID
		}
	}
	return v, nil
}

// applyHold takes the expiry off the entity's items (or puts it back) and
// sets (or lifts) the S3 legal hold of its locked copies: one request per
// item and per object.
func (h *Handler) applyHold(ctx context.Context, ent domain.Entity, on bool, actionID string) (items, objects int, err error) {
	// The command's own record, which the trail's index may not show yet.
	if items, err = h.Store.HoldEntity(ctx, ent, on, actionID); err != nil {
		return items, 0, err
	}
	if h.Records == nil {
		return items, 0, nil
	}
	checks, err := h.Store.EntityChecks(ctx, ent.AccountID, ent.ID, ent.ChecksCount)
	if err != nil {
		return items, 0, err
	}
	prefixes := []string{recordslayout.ChainPrefix(ent.AccountID, ent.ID)}
	for _, chk := range checks {
		prefixes = append(prefixes, recordslayout.EvidencePrefix(ent.AccountID, chk.ID))
	}
	for _, prefix := range prefixes {
		keys, err := h.Records.List(ctx, prefix)
		if err != nil {
			return items, objects, err
		}
		for _, k := range keys {
			if err := h.Records.SetLegalHold(ctx, k, on); err != nil {
				return items, objects, err
			}
			objects++
		}
	}
	return items, objects, nil
}

// legalHoldList lists the account's holds.
func (h *Handler) legalHoldList(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"id"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	holds, err := h.Store.LegalHolds(ctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	out := make([]LegalHoldView, 0, len(holds))
	for _, x := range holds {
		out = append(out, LegalHoldView{AccountID: x.AccountID, EntityID: x.EntityID, Reason: x.Reason, SetBy: x.SetBy,
			SetAt: domain.FormatTime(x.SetAt), ActionID: x.ActionID, Held: true})
	}
	return map[string]any{"legal_holds": out}, nil
}
