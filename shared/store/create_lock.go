package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	mathrand "math/rand/v2"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// A create's commit takes the account's next places in its sequences (the
// entity's id is its place), so two commits in one account cannot both
// succeed at once: as transactions they would conflict and one would be
// retried (3.5 transactions per create at 8 writers, before this). Instead
// commits in an account take turns through a lease on the account item:
// taking the turn is one conditional UpdateItem that also answers the
// account's counters, and the commit's transaction moves the counters and
// ends the turn in the same write. The section that runs one at a time is
// those two requests; everything else a create does (claims, provider calls,
// rendering) overlaps. The lease bounds how long a dead holder blocks the
// account; the transaction's own condition (the counters as read, the turn
// still ours) keeps the sequence dense even if a lease lapses under a slow
// holder.

// createLease outlasts the commit section (an UpdateItem and a transaction)
// many times over.
const createLease = 5 * time.Second

// turn is a create's turn to commit in an account: its token and the
// account's counters as they stood when it began.
type turn struct {
	owner string
	acct  accountItem
}

// takeTurn waits for the account's commit turn, held for at most lease. A
// missing account is not_found. end gives the turn up without a commit.
func (s *Store) takeTurn(ctx context.Context, accountID int64, lease time.Duration) (t turn, end func(), err error) {
	t.owner = newToken()
	table := s.table(schema.Accounts)
	for attempt := 0; ; attempt++ {
		now := time.Now()
		err := table.Update("account_id", accountID).Range("sk", skAccount).
			Set("create_turn", t.owner).Set("create_turn_until", now.Add(lease).UnixMilli()).
			If("attribute_exists(account_id) AND (attribute_not_exists(create_turn_until) OR create_turn_until < ?)", now.UnixMilli()).
			IncludeItemInCondCheckFail(true).
			Value(ctx, &t.acct)
		if err == nil {
			return t, func() { s.endTurn(ctx, accountID, t.owner) }, nil
		}
		if isCondFailed(err) {
			var held accountItem
			found, _ := dynamo.UnmarshalItemFromCondCheckFailed(err, &held)
			switch {
			case !found:
				return turn{}, nil, domain.Errorf(domain.ECodeNotFound, "Account not found.")
			case held.CreateTurn == t.owner:
				// Our own request, retried by the SDK after its answer was
				// lost: the turn is ours.
				t.acct = held
				return t, func() { s.endTurn(ctx, accountID, t.owner) }, nil
			}
		} else if !isThrottled(err) && !isTxConflict(err) {
			return turn{}, nil, wrap(err, "take the commit turn of account %d", accountID)
		}
		if err := waitTurn(ctx, attempt); err != nil {
			return turn{}, nil, err
		}
	}
}

// endTurn gives a turn up; a commit ends its own (createTx).
func (s *Store) endTurn(ctx context.Context, accountID int64, owner string) {
	// A turn left behind lapses with its lease: not worth failing for, nor
	// waiting long on a stalled database.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	err := s.table(schema.Accounts).Update("account_id", accountID).Range("sk", skAccount).
		RemoveExpr("create_turn, create_turn_until").If("create_turn = ?", owner).Run(ctx)
	if err != nil && !isCondFailed(err) {
		logging.From(ctx).Error("commit turn not ended: it lapses with its lease", "account_id", accountID, "error", err.Error())
	}
}

// releaseTimeout bounds the turn's release.
const releaseTimeout = time.Second

// waitTurn waits before asking for the turn again: exponentially longer,
// from 5 ms to 25 ms, with jitter, so that waiters do not hammer the item
// (a refused conditional write still costs a write unit) while one that has
// waited long is not left far behind newcomers (a turn lasts two requests).
func waitTurn(ctx context.Context, attempt int) error {
	d := min(5*time.Millisecond<<min(attempt, 3), 25*time.Millisecond)
	return sleepCtx(ctx, d/2+time.Duration(mathrand.Int64N(int64(d/2)+1)))
}

// newToken is a random token, 32 hex digits (a valid ClientRequestToken).
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
