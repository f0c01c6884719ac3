package store

import (
	"context"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// PutAPIKey stores a new key (its hash only) for an existing account.
func (s *Store) PutAPIKey(ctx context.Context, k domain.APIKey) error {
	it := apiKeyItem{KeyHash: k.Hash, Prefix: k.Prefix, AccountID: k.AccountID, Permissions: k.Permissions, CreatedAt: fmtTime(k.CreatedAt)}
	err := s.db.WriteTx().
		Check(s.table(schema.Accounts).Check("account_id", k.AccountID).Range("sk", skAccount).IfExists()).
		Put(s.table(schema.APIKeys).Put(it).If("attribute_not_exists(key_hash)")).
		Run(ctx)
	if isTxCondFailed(err) {
		return domain.Errorf(domain.ECodeNotFound, "Account not found.")
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
