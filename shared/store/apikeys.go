package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

type apiKeyItem struct {
	KeyHash     string   `dynamo:"key_hash,hash"`
	KeyID       string   `dynamo:"key_id"`
	Prefix      string   `dynamo:"prefix"`
	AccountID   int64    `dynamo:"account_id"`
	Permissions []string `dynamo:"permissions,set,omitempty"`
	Description string   `dynamo:"description,omitempty"`
	CreatedAt   string   `dynamo:"created_at"`
	RevokedAt   string   `dynamo:"revoked_at,omitempty"`
}

func (it apiKeyItem) domain() domain.APIKey {
	id := it.KeyID
	if id == "" {
		// Keys issued before ids existed.
		id = keyID(it.KeyHash)
	}
	return domain.APIKey{
		ID:          id,
		Description: it.Description,
		Hash:        it.KeyHash,
		Prefix:      it.Prefix,
		AccountID:   it.AccountID,
		Permissions: it.Permissions,
		CreatedAt:   parseTime(it.CreatedAt),
		RevokedAt:   parseOptTime(it.RevokedAt),
	}
}

func newAPIKeyItem(k domain.APIKey) apiKeyItem {
	if k.ID == "" {
		// Every key is listed by the account's index, which needs its id.
		k.ID = keyID(k.Hash)
	}
	return apiKeyItem{KeyHash: k.Hash, KeyID: k.ID, Prefix: k.Prefix, AccountID: k.AccountID, Permissions: k.Permissions,
		Description: k.Description, CreatedAt: fmtTime(k.CreatedAt), RevokedAt: fmtOptTime(k.RevokedAt)}
}

// PutAPIKey stores a new key (its hash only) for an existing account (seed
// data and tests; administrators issue keys with IssueAPIKey).
func (s *Store) PutAPIKey(ctx context.Context, k domain.APIKey) error {
	return s.issueAPIKey(ctx, k, nil)
}

// IssueAPIKey stores a new key (its hash only) for an existing account with
// the audit record of its issue, in one transaction.
func (s *Store) IssueAPIKey(ctx context.Context, k domain.APIKey, audit domain.AuditRecord) error {
	return s.issueAPIKey(ctx, k, &audit)
}

func (s *Store) issueAPIKey(ctx context.Context, k domain.APIKey, audit *domain.AuditRecord) error {
	err := s.auditTxMaybe(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Check(s.table(schema.Accounts).Check("account_id", k.AccountID).Range("sk", skAccount).IfExists()).
			Put(s.table(schema.APIKeys).Put(newAPIKeyItem(k)).If("attribute_not_exists(key_hash)"))
		if rec != nil {
			tx.Put(rec)
		}
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Errorf(domain.ECodeNotFound, "Account not found.")
	case cancelledAt(err, 2):
		return domain.ErrDuplicateAction
	}
	return wrap(err, "put api key")
}

// APIKeyByHash returns the key whose SHA-256 is hash.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, error) {
	var it apiKeyItem
	err := s.table(schema.APIKeys).Get("key_hash", hash).One(ctx, &it)
	if err != nil {
		return domain.APIKey{}, wrap(notFound(err, "API key"), "get api key")
	}
	return it.domain(), nil
}

// APIKeys returns the account's keys, revoked ones included, oldest first.
// It reads a global index, so a key issued a moment ago may be missing.
func (s *Store) APIKeys(ctx context.Context, accountID int64) ([]domain.APIKey, error) {
	var items []apiKeyItem
	err := s.table(schema.APIKeys).Get("account_id", accountID).Index(schema.APIKeysByAccount).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list api keys of account %d: %w", accountID, err)
	}
	out := make([]domain.APIKey, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// APIKey returns the account's key with the id (domain.APIKey.ID): another
// account's key is not found.
func (s *Store) APIKey(ctx context.Context, accountID int64, id string) (domain.APIKey, error) {
	var ref apiKeyItem
	err := s.table(schema.APIKeys).Get("account_id", accountID).Range("key_id", dynamo.Equal, id).
		Index(schema.APIKeysByAccount).One(ctx, &ref)
	if err != nil {
		return domain.APIKey{}, wrap(notFound(err, "API key"), "get api key %s", id)
	}
	// The index is eventually consistent: the key itself is read strongly.
	var it apiKeyItem
	err = s.table(schema.APIKeys).Get("key_hash", ref.KeyHash).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.APIKey{}, wrap(notFound(err, "API key"), "get api key %s", id)
	}
	return it.domain(), nil
}

// RevokeAPIKey marks a key revoked. Revoking it again keeps the first time.
func (s *Store) RevokeAPIKey(ctx context.Context, hash string, at time.Time) error {
	err := s.table(schema.APIKeys).Update("key_hash", hash).
		SetIfNotExists("revoked_at", fmtTime(at)).
		If("attribute_exists(key_hash)").Run(ctx)
	if isCondFailed(err) {
		return domain.Errorf(domain.ECodeNotFound, "API key not found.")
	}
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	return nil
}

// RevokeKey ends the account's key at `at` (now, or later for a rotation's
// overlap) with the audit record, in one transaction. A key that already
// ends sooner keeps its end.
func (s *Store) RevokeKey(ctx context.Context, k domain.APIKey, at time.Time, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Update(s.revokeUpdate(k, at)).
			Put(rec)
	})
	return s.keyTxError(err, k, 1)
}

// RotateKey ends the key old at oldEnds and issues next in its place, with
// the audit record, in one transaction.
func (s *Store) RotateKey(ctx context.Context, old domain.APIKey, oldEnds time.Time, next domain.APIKey, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.
			Update(s.revokeUpdate(old, oldEnds)).
			Put(s.table(schema.APIKeys).Put(newAPIKeyItem(next)).If("attribute_not_exists(key_hash)")).
			Put(rec)
	})
	return s.keyTxError(err, old, 2)
}

func (s *Store) revokeUpdate(k domain.APIKey, at time.Time) *dynamo.Update {
	return s.table(schema.APIKeys).Update("key_hash", k.Hash).
		Set("revoked_at", fmtTime(at)).
		If("account_id = ? AND (attribute_not_exists(revoked_at) OR revoked_at > ?)", k.AccountID, fmtTime(at))
}

func (s *Store) keyTxError(err error, k domain.APIKey, auditAt int) error {
	switch {
	case cancelledAt(err, 0):
		return domain.Errorf(domain.ECodeConflict, "API key %s is revoked already.", k.ID)
	case cancelledAt(err, auditAt):
		return domain.ErrDuplicateAction
	}
	return wrap(err, "revoke api key %s", k.ID)
}

// keyID is auth.KeyID, for keys stored without an id.
func keyID(hash string) string { return "key_" + hash[:min(16, len(hash))] }
