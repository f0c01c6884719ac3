package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

const seqEndpoint = "webhook_endpoint"

type endpointItem struct {
	AccountID  int64    `dynamo:"account_id,hash"`
	EndpointID int64    `dynamo:"endpoint_id,range"`
	URL        string   `dynamo:"url"`
	Events     []string `dynamo:"events,set,omitempty"`
	Active     bool     `dynamo:"active"`
	// The signing secrets are kept here, encrypted at rest with the table;
	// only the delivery function and endpoint management may read them.
	Secret            string `dynamo:"secret"`
	PreviousSecret    string `dynamo:"previous_secret,omitempty"`
	PreviousExpiresAt string `dynamo:"previous_expires_at,omitempty"`
	Description       string `dynamo:"description,omitempty"`
	CreatedAt         string `dynamo:"created_at"`
	UpdatedAt         string `dynamo:"updated_at"`
	Version           int64  `dynamo:"version"`
}

func newEndpointItem(e domain.Endpoint) endpointItem {
	it := endpointItem{
		AccountID: e.AccountID, EndpointID: e.ID, URL: e.URL, Active: e.Active, Secret: e.Secret,
		PreviousSecret: e.PreviousSecret, PreviousExpiresAt: fmtOptTime(e.PreviousExpiresAt), Description: e.Description,
		CreatedAt: fmtTime(e.CreatedAt), UpdatedAt: fmtTime(e.UpdatedAt), Version: e.Version,
	}
	for _, t := range e.Events {
		it.Events = append(it.Events, string(t))
	}
	sort.Strings(it.Events)
	return it
}

func (it endpointItem) domain() domain.Endpoint {
	e := domain.Endpoint{
		AccountID: it.AccountID, ID: it.EndpointID, URL: it.URL, Active: it.Active, Secret: it.Secret,
		PreviousSecret: it.PreviousSecret, PreviousExpiresAt: parseOptTime(it.PreviousExpiresAt), Description: it.Description,
		CreatedAt: parseTime(it.CreatedAt), UpdatedAt: parseTime(it.UpdatedAt), Version: it.Version,
	}
	for _, t := range it.Events {
		e.Events = append(e.Events, domain.EventType(t))
	}
	return e
}

// CreateEndpoint stores a new endpoint of an existing account, with the
// audit record of its creation, and returns it with its id;
// domain.ErrDuplicateAction if the audit record's action id was applied before.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint, audit domain.AuditRecord) (domain.Endpoint, error) {
	id, err := s.nextIDs(ctx, seqEndpoint, 1)
	if err != nil {
		return domain.Endpoint{}, err
	}
	e.ID, e.Version = id, 1
	audit.After = map[string]any{"endpoint_id": id, "url": e.URL, "events": e.Events, "active": e.Active}
	err = s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Check(s.table(schema.Accounts).Check("account_id", e.AccountID).Range("sk", skAccount).IfExists()).
			Put(s.table(schema.WebhookEndpoints).Put(newEndpointItem(e)).If("attribute_not_exists(endpoint_id)")).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Endpoint{}, domain.Errorf(domain.ECodeNotFound, "Account not found.")
	case cancelledAt(err, 2):
		return domain.Endpoint{}, domain.ErrDuplicateAction
	case err != nil:
		return domain.Endpoint{}, fmt.Errorf("create endpoint for account %d: %w", e.AccountID, err)
	}
	return e, nil
}

// Endpoint returns one endpoint of the account.
func (s *Store) Endpoint(ctx context.Context, accountID, id int64) (domain.Endpoint, error) {
	var it endpointItem
	err := s.table(schema.WebhookEndpoints).Get("account_id", accountID).Range("endpoint_id", dynamo.Equal, id).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Endpoint{}, wrap(notFound(err, "Webhook endpoint"), "get endpoint %d", id)
	}
	return it.domain(), nil
}

// Endpoints returns the account's endpoints, by id. Endpoint management
// reads strongly; the event stream reads eventually, which is cheaper and
// current within a second.
func (s *Store) Endpoints(ctx context.Context, accountID int64, c domain.Consistency) ([]domain.Endpoint, error) {
	var items []endpointItem
	err := s.table(schema.WebhookEndpoints).Get("account_id", accountID).Consistent(c == domain.ReadStrong).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list endpoints of account %d: %w", accountID, err)
	}
	out := make([]domain.Endpoint, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

// UpdateEndpoint replaces an endpoint read at e.Version, with the audit
// record of the change; domain.ErrStale if it changed (or went) meanwhile,
// domain.ErrDuplicateAction if the action id was applied before.
func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint, audit domain.AuditRecord) (domain.Endpoint, error) {
	next := e
	next.Version = e.Version + 1
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Put(s.table(schema.WebhookEndpoints).Put(newEndpointItem(next)).If("version = ?", e.Version)).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 1):
		return domain.Endpoint{}, domain.ErrDuplicateAction
	case isTxCondFailed(err), isTxConflict(err):
		return domain.Endpoint{}, domain.ErrStale
	case err != nil:
		return domain.Endpoint{}, fmt.Errorf("update endpoint %d: %w", e.ID, err)
	}
	return next, nil
}

// DeleteEndpoint removes an endpoint read at version, with the audit record;
// domain.ErrStale if it changed meanwhile, domain.ErrDuplicateAction if the action id was
// applied before. Its deliveries stay, for the record.
func (s *Store) DeleteEndpoint(ctx context.Context, accountID, id, version int64, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Delete(s.table(schema.WebhookEndpoints).Delete("account_id", accountID).Range("endpoint_id", id).If("version = ?", version)).
			Put(rec)
	})
	switch {
	case cancelledAt(err, 1):
		return domain.ErrDuplicateAction
	case isTxCondFailed(err), isTxConflict(err):
		return domain.ErrStale
	case err != nil:
		return fmt.Errorf("delete endpoint %d: %w", id, err)
	}
	return nil
}
