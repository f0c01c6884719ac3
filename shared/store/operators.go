package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

const (
	skOperatorPrefix = "OPERATOR#"
	seqOperator      = "operator"
)

type operatorItem struct {
	AccountID   int64    `dynamo:"account_id,hash"`
	SK          string   `dynamo:"sk,range"`
	OperatorID  int64    `dynamo:"operator_id"`
	Name        string   `dynamo:"name"`
	Permissions []string `dynamo:"permissions,set,omitempty"`
	CreatedAt   string   `dynamo:"created_at"`
	DisabledAt  string   `dynamo:"disabled_at,omitempty"`
	Version     int64    `dynamo:"version,omitempty"`
}

func operatorSK(id int64) string { return fmt.Sprintf("%s%012d", skOperatorPrefix, id) }

func (it operatorItem) domain() domain.Operator {
	return domain.Operator{AccountID: it.AccountID, ID: it.OperatorID, Name: it.Name, Permissions: it.Permissions,
		CreatedAt: parseTime(it.CreatedAt), DisabledAt: parseOptTime(it.DisabledAt), Version: it.Version}
}

func newOperatorItem(o domain.Operator) operatorItem {
	return operatorItem{AccountID: o.AccountID, SK: operatorSK(o.ID), OperatorID: o.ID, Name: o.Name, Permissions: o.Permissions,
		CreatedAt: fmtTime(o.CreatedAt), DisabledAt: fmtOptTime(o.DisabledAt), Version: o.Version}
}

// CreateOperator adds an operator to an existing account (seed data and
// tests; administrators add operators with AddOperator).
func (s *Store) CreateOperator(ctx context.Context, accountID int64, name string, permissions []string, now time.Time) (domain.Operator, error) {
	return s.addOperator(ctx, domain.Operator{AccountID: accountID, Name: name, Permissions: permissions, CreatedAt: now}, nil)
}

// AddOperator adds an operator to an existing account with the audit
// record, in one transaction, and returns it with its new id.
func (s *Store) AddOperator(ctx context.Context, op domain.Operator, audit domain.AuditRecord) (domain.Operator, error) {
	return s.addOperator(ctx, op, &audit)
}

func (s *Store) addOperator(ctx context.Context, op domain.Operator, audit *domain.AuditRecord) (domain.Operator, error) {
	if err := validOperator(op); err != nil {
		return domain.Operator{}, err
	}
	id, err := s.nextIDs(ctx, seqOperator, 1)
	if err != nil {
		return domain.Operator{}, err
	}
	op.ID = id
	if audit != nil {
		a := *audit
		if a.After == nil {
			a.After = map[string]any{}
		}
		a.After["operator_id"] = id
		audit = &a
	}
	err = s.auditTxMaybe(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Check(s.table(schema.Accounts).Check("account_id", op.AccountID).Range("sk", skAccount).IfExists()).
			Put(s.table(schema.Accounts).Put(newOperatorItem(op)))
		if rec != nil {
			tx.Put(rec)
		}
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Operator{}, domain.Errorf(domain.ECodeNotFound, "Account not found.")
	case cancelledAt(err, 2):
		return domain.Operator{}, domain.ErrDuplicateAction
	case err != nil:
		return domain.Operator{}, fmt.Errorf("create operator: %w", err)
	}
	return op, nil
}

// UpdateOperator replaces an operator read at op.Version (name,
// permissions, disabled) with the audit record, in one transaction; a
// change meanwhile (another update, a disable) is a conflict, so a stale
// update never re-enables a disabled operator.
func (s *Store) UpdateOperator(ctx context.Context, op domain.Operator, audit domain.AuditRecord) error {
	if err := validOperator(op); err != nil {
		return err
	}
	next := op
	next.Version = op.Version + 1
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(s.table(schema.Accounts).Put(newOperatorItem(next)).
				If("attribute_exists(operator_id) AND (version = ? OR (attribute_not_exists(version) AND ? = ?))", op.Version, op.Version, int64(0))).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Errorf(domain.ECodeConflict, "Operator %d changed meanwhile: look again.", op.ID)
	case cancelledAt(err, 1):
		return domain.ErrDuplicateAction
	}
	return wrap(err, "update operator %d", op.ID)
}

// Operators returns the account's operators, by id.
func (s *Store) Operators(ctx context.Context, accountID int64) ([]domain.Operator, error) {
	var items []operatorItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.BeginsWith, skOperatorPrefix).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list operators of account %d: %w", accountID, err)
	}
	out := make([]domain.Operator, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

func validOperator(op domain.Operator) error {
	if op.Name == "" {
		return domain.Invalid("name", "can't be blank")
	}
	for _, p := range op.Permissions {
		if !contains(domain.OperatorPermissions(), p) {
			return domain.Invalid("permissions", fmt.Sprintf("%q is not an operator permission", p))
		}
	}
	return nil
}

// Operator returns one operator of the account.
func (s *Store) Operator(ctx context.Context, accountID, id int64) (domain.Operator, error) {
	var it operatorItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, operatorSK(id)).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Operator{}, wrap(notFound(err, "Operator"), "get operator %d", id)
	}
	return it.domain(), nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
