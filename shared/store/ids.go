package store

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Names of the service-wide id sequences in the counters table: only what
// administrators create. Nothing a create or a decision writes is shared
// between accounts.
const seqAccount = "account"

// nextIDs reserves n consecutive ids of a service-wide sequence and returns
// the first. The atomic ADD never conflicts; an id reserved by a write that
// then fails is skipped, never reused (ids need to be unique and
// increasing, not dense).
func (s *Store) nextIDs(ctx context.Context, seq string, n int) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	var out struct {
		Value int64 `dynamo:"value"`
	}
	err := s.table(schema.Counters).Update("name", seq).Add("value", n).Value(ctx, &out)
	if err != nil {
		return 0, fmt.Errorf("reserve %d %s ids: %w", n, seq, err)
	}
	return out.Value - int64(n) + 1, nil
}

// Checks and reviews are numbered per account, in an item of the account's
// own ("SEQ"), apart from the account item whose counters a commit moves
// under its turn: an atomic ADD there never waits for a turn nor conflicts
// with a commit, and no item is written by creates in every account. An
// entity's id is its place in the account's sequence (entity_create.go).
const skSequences = "SEQ"

// Sequences of the SEQ item.
const (
	seqCheck  = "check"
	seqReview = "review"
	seqParty  = "party"
)

// nextAccountIDs reserves, in one request, n[seq] consecutive ids of each
// of the account's sequences and returns the first of each (a
// domain.ScopedID). Like nextIDs,
// an id whose write then fails is skipped, never reused.
func (s *Store) nextAccountIDs(ctx context.Context, accountID int64, n map[string]int) (map[string]int64, error) {
	u := s.table(schema.Accounts).Update("account_id", accountID).Range("sk", skSequences)
	some := false
	for seq, k := range n {
		if k > 0 {
			u.Add(seq, k)
			some = true
		}
	}
	first := map[string]int64{}
	if !some {
		return first, nil
	}
	var out map[string]int64
	if err := u.OnlyUpdatedValue(ctx, &out); err != nil {
		return nil, fmt.Errorf("reserve ids in account %d: %w", accountID, err)
	}
	for seq, k := range n {
		if k > 0 {
			if out[seq] >= domain.IDSpan {
				return nil, errAccountFull(accountID)
			}
			first[seq] = domain.ScopedID(accountID, out[seq]-int64(k)+1)
		}
	}
	return first, nil
}

// errAccountFull refuses an id past the account's span (domain.IDSpan),
// where it would run into the next account's ids.
func errAccountFull(accountID int64) error {
	return fmt.Errorf("account %d has used all %d ids of a kind: %w", accountID, domain.IDSpan-1,
		domain.Errorf(domain.ECodeUnavailable, "This account can hold no more entities, checks or reviews."))
}
