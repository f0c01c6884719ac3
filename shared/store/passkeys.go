package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// An operator's passkeys live in the accounts table beside the operator,
// under PASSKEY#<operator>#<credential id> (not under OPERATOR#, which
// Operators lists by prefix). A discoverable sign-in names the account and
// operator in its user handle and the credential by its id, so finding the
// passkey is one GetItem.
const skPasskeyPrefix = "PASSKEY#"

func passkeySK(operatorID int64, credentialID []byte) string {
	return passkeyPrefix(operatorID) + base64.RawURLEncoding.EncodeToString(credentialID)
}

func passkeyPrefix(operatorID int64) string {
	return fmt.Sprintf("%s%012d#", skPasskeyPrefix, operatorID)
}

type passkeyItem struct {
	AccountID      int64    `dynamo:"account_id,hash"`
	SK             string   `dynamo:"sk,range"`
	OperatorID     int64    `dynamo:"operator_id"`
	CredentialID   []byte   `dynamo:"credential_id"`
	PublicKey      []byte   `dynamo:"public_key"`
	SignCount      int64    `dynamo:"sign_count"`
	AAGUID         []byte   `dynamo:"aaguid,omitempty"`
	Transports     []string `dynamo:"transports,omitempty"`
	BackupEligible bool     `dynamo:"backup_eligible"`
	BackupState    bool     `dynamo:"backup_state"`
	Name           string   `dynamo:"name"`
	CreatedAt      string   `dynamo:"created_at"`
	LastUsedAt     string   `dynamo:"last_used_at,omitempty"`
}

func newPasskeyItem(p domain.Passkey) passkeyItem {
	return passkeyItem{AccountID: p.AccountID, SK: passkeySK(p.OperatorID, p.ID), OperatorID: p.OperatorID, CredentialID: p.ID,
		PublicKey: p.PublicKey, SignCount: int64(p.SignCount), AAGUID: p.AAGUID, Transports: p.Transports,
		BackupEligible: p.BackupEligible, BackupState: p.BackupState, Name: p.Name, CreatedAt: fmtTime(p.CreatedAt),
		LastUsedAt: fmtOptTime(p.LastUsedAt)}
}

func (it passkeyItem) domain() domain.Passkey {
	return domain.Passkey{AccountID: it.AccountID, OperatorID: it.OperatorID, ID: it.CredentialID, PublicKey: it.PublicKey,
		SignCount: uint32(it.SignCount), AAGUID: it.AAGUID, Transports: it.Transports, BackupEligible: it.BackupEligible,
		BackupState: it.BackupState, Name: it.Name, CreatedAt: parseTime(it.CreatedAt), LastUsedAt: parseOptTime(it.LastUsedAt)}
}

// AddPasskey stores a passkey registered, with the audit record of its
// registration, in one transaction. conflict: the credential id is the
// operator's already; domain.ErrDuplicateAction if the action id was
// applied before.
func (s *Store) AddPasskey(ctx context.Context, p domain.Passkey, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Put(s.table(schema.Accounts).Put(newPasskeyItem(p)).If("attribute_not_exists(sk)")).Put(rec)
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Errorf(domain.ECodeConflict, "This passkey is registered already.")
	case cancelledAt(err, 1):
		return domain.ErrDuplicateAction
	case err != nil:
		return fmt.Errorf("add passkey: %w", err)
	}
	return nil
}

// Passkeys lists an operator's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, accountID, operatorID int64) ([]domain.Passkey, error) {
	var items []passkeyItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.BeginsWith, passkeyPrefix(operatorID)).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	out := make([]domain.Passkey, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	slices.SortFunc(out, func(a, b domain.Passkey) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Passkey reads one of an operator's passkeys. not_found: the operator
// holds no passkey with this id.
func (s *Store) Passkey(ctx context.Context, accountID, operatorID int64, credentialID []byte) (domain.Passkey, error) {
	var it passkeyItem
	err := s.table(schema.Accounts).Get("account_id", accountID).Range("sk", dynamo.Equal, passkeySK(operatorID, credentialID)).
		Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return domain.Passkey{}, domain.Errorf(domain.ECodeNotFound, "No such passkey.")
	case err != nil:
		return domain.Passkey{}, fmt.Errorf("get passkey: %w", err)
	}
	return it.domain(), nil
}

// UsePasskey records a verified use: the new signature counter and the
// time, conditioned on the counter read (p.SignCount), so two uses verified
// against the same counter cannot both land (domain.ErrStale for the
// second: a cloned authenticator's signature, or a replay, loses).
func (s *Store) UsePasskey(ctx context.Context, p domain.Passkey, next uint32, at time.Time) error {
	err := s.useWrite(p, next, at).Run(ctx)
	switch {
	case isCondFailed(err):
		return domain.ErrStale
	case err != nil:
		return fmt.Errorf("use passkey: %w", err)
	}
	return nil
}

// useWrite records a use of p at `at`, its counter moved to next, on the
// condition that the passkey is still there and its counter still the
// value read: a sign-in's alone (UsePasskey), a signature's in the
// transaction of what it signs.
func (s *Store) useWrite(p domain.Passkey, next uint32, at time.Time) *dynamo.Update {
	return s.table(schema.Accounts).Update("account_id", p.AccountID).Range("sk", passkeySK(p.OperatorID, p.ID)).
		Set("sign_count", int64(next)).Set("last_used_at", fmtTime(at)).
		If("attribute_exists(sk) AND sign_count = ?", int64(p.SignCount))
}

// RemovePasskey deletes a passkey with the audit record of its removal.
// not_found: no such passkey; domain.ErrDuplicateAction if the action id
// was applied before.
func (s *Store) RemovePasskey(ctx context.Context, p domain.Passkey, audit domain.AuditRecord) error {
	err := s.auditTx(ctx, audit, func(tx *dynamo.WriteTx, rec *dynamo.Put) {
		tx.Delete(s.table(schema.Accounts).Delete("account_id", p.AccountID).Range("sk", passkeySK(p.OperatorID, p.ID)).
			If("attribute_exists(sk)")).Put(rec)
	})
	switch {
	case cancelledAt(err, 0):
		return domain.Errorf(domain.ECodeNotFound, "No such passkey.")
	case cancelledAt(err, 1):
		return domain.ErrDuplicateAction
	case err != nil:
		return fmt.Errorf("remove passkey: %w", err)
	}
	return nil
}
