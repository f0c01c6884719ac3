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
}

func operatorSK(id int64) string { return fmt.Sprintf("%s%012d", skOperatorPrefix, id) }

func (it operatorItem) domain() domain.Operator {
	return domain.Operator{AccountID: it.AccountID, ID: it.OperatorID, Name: it.Name, Permissions: it.Permissions, CreatedAt: parseTime(it.CreatedAt)}
}

// CreateOperator adds an operator to an existing account.
func (s *Store) CreateOperator(ctx context.Context, accountID int64, name string, permissions []string, now time.Time) (domain.Operator, error) {
	if name == "" {
		return domain.Operator{}, domain.Invalid("name", "can't be blank")
	}
	for _, p := range permissions {
		if !contains(domain.OperatorPermissions, p) {
			return domain.Operator{}, domain.Invalid("permissions", fmt.Sprintf("%q is not an operator permission", p))
		}
	}
	id, err := s.nextIDs(ctx, seqOperator, 1)
	if err != nil {
		return domain.Operator{}, err
	}
	it := operatorItem{AccountID: accountID, SK: operatorSK(id), OperatorID: id, Name: name, Permissions: permissions, CreatedAt: fmtTime(now)}
	err = s.db.WriteTx().
		Check(s.table(schema.Accounts).Check("account_id", accountID).Range("sk", skAccount).IfExists()).
		Put(s.table(schema.Accounts).Put(it)).
		Run(ctx)
	if isTxCondFailed(err) {
		return domain.Operator{}, domain.Errorf(domain.ECodeNotFound, "Account not found.")
	}
	if err != nil {
		return domain.Operator{}, fmt.Errorf("create operator: %w", err)
	}
	return it.domain(), nil
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
