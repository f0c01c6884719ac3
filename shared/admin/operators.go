package admin

import (
	"context"
	"slices"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

type operatorFields struct {
	common
	AccountID   int64     `json:"account_id" strict:"id"`
	OperatorID  int64     `json:"operator_id" strict:"id"`
	Name        *string   `json:"name" text:"name"`
	Permissions *[]string `json:"permissions"`
}

func (h *Handler) operatorCreate(ctx context.Context, c *call) (any, error) {
	var p operatorFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if p.OperatorID != 0 {
		return nil, domain.Invalid("operator_id", "is given by the service: leave it out")
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	op := domain.Operator{AccountID: p.AccountID, CreatedAt: c.now, Permissions: []string{}}
	if p.Name == nil {
		return nil, domain.Invalid("name", "is required")
	}
	if err := applyOperatorFields(&op, p); err != nil {
		return nil, err
	}
	op, err := h.Store.AddOperator(ctx, op, c.audit(p.AccountID, domain.ActionOperatorCreate, nil, operatorSnapshot(op)))
	if err != nil {
		return nil, err
	}
	return map[string]any{"operator": viewOperator(op)}, nil
}

func (h *Handler) operatorList(ctx context.Context, c *call) (any, error) {
	accountID, err := h.accountOnly(ctx, c)
	if err != nil {
		return nil, err
	}
	ops, err := h.Store.Operators(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]OperatorView, 0, len(ops))
	for _, o := range ops {
		out = append(out, viewOperator(o))
	}
	return map[string]any{"operators": out}, nil
}

func (h *Handler) operatorUpdate(ctx context.Context, c *call) (any, error) {
	return h.changeOperator(ctx, c, domain.ActionOperatorUpdate, func(op *domain.Operator, p operatorFields) error {
		if p.Name == nil && p.Permissions == nil {
			return domain.Invalid("name", "or permissions is required: say what changes")
		}
		return applyOperatorFields(op, p)
	})
}

// operatorDisable stops an operator for good: every permission check
// refuses a disabled operator. Disabling a disabled operator is refused
// (Conflict), as it always was: the first disable is the one on record.
func (h *Handler) operatorDisable(ctx context.Context, c *call) (any, error) {
	return h.changeOperator(ctx, c, domain.ActionOperatorDisable, func(op *domain.Operator, p operatorFields) error {
		if err := notFields(c, map[string]bool{"name": p.Name != nil, "permissions": p.Permissions != nil}); err != nil {
			return err
		}
		if op.DisabledAt != nil {
			return domain.Errorf(domain.ECodeConflict, "Operator %d is disabled already.", op.ID)
		}
		op.DisabledAt = &c.now
		return nil
	})
}

// changeOperator applies a change to the operator as read and writes it,
// conditioned on the version read, with its audit record. A change that
// leaves the operator as it is (the same name and permissions) writes
// nothing and answers the operator with "changed": false.
func (h *Handler) changeOperator(ctx context.Context, c *call, action domain.Action, apply func(*domain.Operator, operatorFields) error) (any, error) {
	var p operatorFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	if p.OperatorID <= 0 {
		return nil, domain.Invalid("operator_id", "is required")
	}
	op, err := h.Store.Operator(ctx, p.AccountID, p.OperatorID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return nil, domain.Errorf(domain.ECodeNotFound, "Account %d has no operator %d.", p.AccountID, p.OperatorID)
	}
	if err != nil {
		return nil, err
	}
	read := op
	before := operatorSnapshot(op)
	if err := apply(&op, p); err != nil {
		return nil, err
	}
	if sameOperator(read, op) {
		if err := domain.ActionIDUnused(ctx, h.Store, p.AccountID, c.ActionID); err != nil {
			return nil, err
		}
		return changeAnswer("operator", viewOperator(read), false), nil
	}
	if err := h.Store.UpdateOperator(ctx, op, c.audit(p.AccountID, action, before, operatorSnapshot(op))); err != nil {
		return nil, err
	}
	return changeAnswer("operator", viewOperator(op), true), nil
}

// sameOperator reports whether a change left the operator as it was:
// permissions as a set (DynamoDB keeps them as one).
func sameOperator(a, b domain.Operator) bool {
	return a.Name == b.Name && (a.DisabledAt == nil) == (b.DisabledAt == nil) && sameSet(a.Permissions, b.Permissions)
}

func applyOperatorFields(op *domain.Operator, p operatorFields) error {
	if p.Name != nil {
		if err := freetext.Check("name", *p.Name, freetext.Name, true); err != nil {
			return err
		}
		op.Name = *p.Name
	}
	if p.Permissions != nil {
		perms := []string{}
		for _, perm := range trimAll(*p.Permissions) {
			if !slices.Contains(domain.OperatorPermissions(), perm) {
				return domain.Invalid("permissions", "\""+perm+"\" is not an operator permission; use "+joinStrings(domain.OperatorPermissions()))
			}
			if !slices.Contains(perms, perm) {
				perms = append(perms, perm)
			}
		}
		slices.Sort(perms)
		op.Permissions = perms
	}
	return nil
}

func operatorSnapshot(o domain.Operator) map[string]any {
	m := map[string]any{"name": o.Name, "permissions": o.Permissions}
	if o.ID != 0 {
		m["operator_id"] = o.ID
	}
	if o.DisabledAt != nil {
		m["disabled_at"] = domain.FormatTime(*o.DisabledAt)
	}
	return m
}
