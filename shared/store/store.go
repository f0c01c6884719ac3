// Package store keeps the service's records in DynamoDB through guregu/dynamo.
// Every key that holds tenant data starts with the account id, so a read made
// for one account can never reach another's records.
//
// One file per operation; every method takes ctx first and reports
// domain.Error codes (not_found, conflict, validation_failed) for what a caller
// may see, and wrapped errors for faults.
//
// Reads that a caller may make right after a write (a GET after a 201) are
// strongly consistent: a client never misses its own write.
package store

import (
	"errors"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Store reads and writes the service's tables.
type Store struct {
	db    *dynamo.DB
	names schema.Names
}

// New returns a Store over db with the physical table names.
func New(db *dynamo.DB, names schema.Names) *Store {
	return &Store{db: db, names: names}
}

// DB returns the underlying client, for tools that manage tables.
func (s *Store) DB() *dynamo.DB { return s.db }

// Names returns (a copy of) the physical table names, for tools and tests
// that read a table beside the store.
func (s *Store) Names() schema.Names { return maps.Clone(s.names) }

func (s *Store) table(id string) dynamo.Table {
	name, ok := s.names[id]
	if !ok {
		// The function's environment names no such table (its grants give
		// it none): a name that says so, which no role is granted and no
		// table has, so the call fails naming the table, never under an
		// empty name.
		name = schema.UnnamedTable(id)
	}
	return s.db.Table(name)
}

// notFound maps dynamo's ErrNotFound to the caller-facing not_found error.
func notFound(err error, what string) error {
	if errors.Is(err, dynamo.ErrNotFound) {
		return domain.Errorf(domain.ECodeNotFound, "%s not found.", what)
	}
	return err
}

func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// ClientOptions configures the DynamoDB client the store runs on: its
// retryer also retries transactions cancelled by a conflict with another
// transaction (guregu/dynamo's RetryTxConflicts), which the SDK alone does
// not.
func ClientOptions(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(dynamo.RetryTxConflicts)
}
