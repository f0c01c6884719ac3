package domain

import "fmt"

// Entity, check and review ids are numbered per account, so that no item is
// written by creates in every account (a service-wide sequence would cap the
// whole service at one item's ~1,000 writes a second), and are still unique
// across the service: an id is its account's id times IDSpan plus its place
// in the account's sequence. Account 1's first entity is 1000000001, account
// 42's is 42000000001. Ids stay below 2^53, safe as JavaScript numbers, up to
// MaxScopedAccount; an account numbers up to IDSpan-1 of each kind.
const (
	IDSpan           int64 = 1_000_000_000
	MaxScopedAccount int64 = (1<<53-1)/IDSpan - 1 // 9,007,198: every id of the last fits
)

// ScopedID is the id of the seq-th entity (check, review) of an account.
func ScopedID(accountID, seq int64) int64 { return accountID*IDSpan + seq }

// SeqOfID is an id's place in its account's sequence.
func SeqOfID(id int64) int64 { return id % IDSpan }

// CheckScopedAccount refuses an account id whose ids would pass 2^53.
func CheckScopedAccount(accountID int64) error {
	if accountID < 1 || accountID > MaxScopedAccount {
		return fmt.Errorf("account id %d outside 1..%d: its ids would not be safe JavaScript integers", accountID, MaxScopedAccount)
	}
	return nil
}

// ShortIDHint says how ids are formed when an entity, check or review id
// given for an account is short (below IDSpan: a place in the sequence, as
// ids were once written, rather than the id): " (… number 156 of account 1
// is 1000000156)", to append to a not-found message; "" otherwise.
func ShortIDHint(accountID, id int64) string {
	if accountID < 1 || id < 1 || id >= IDSpan {
		return ""
	}
	return fmt.Sprintf(" (ids are scoped by account, the account's id × %d plus the place in its sequence: number %d of account %d is %d)",
		IDSpan, id, accountID, ScopedID(accountID, id))
}
