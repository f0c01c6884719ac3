package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	mathrand "math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// The commit of a create takes the account's next sequence numbers, so two
// commits in one account cannot both succeed at once: as transactions they
// would conflict and one would be retried (3.5 transactions per create at 8
// writers). Instead commits in an account take turns through a lease item:
// a waiting create polls a conditional PutItem (a cheap, certain refusal)
// and its transaction then runs alone, once. The lease bounds how long a
// dead holder blocks the account; the transaction's own conditions keep the
// sequence right even if a lease lapses under a slow holder.

const (
	skCreateLock = "LOCK#create"
	// createLease outlasts the commit section (a read, an id, a
	// transaction) many times over.
	createLease = 5 * time.Second
)

type createLockItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	Owner     string `dynamo:"lock_owner"`
	Until     int64  `dynamo:"lease_until"` // Unix ms
}

// lockCreates waits for the account's commit turn; release ends it.
func (s *Store) lockCreates(ctx context.Context, accountID int64) (release func(), err error) {
	owner := newToken()
	table := s.table(schema.Accounts)
	for attempt := 0; ; attempt++ {
		now := time.Now()
		err := table.Put(createLockItem{AccountID: accountID, SK: skCreateLock, Owner: owner, Until: now.Add(createLease).UnixMilli()}).
			If("attribute_not_exists(sk) OR lease_until < ?", now.UnixMilli()).Run(ctx)
		if err == nil {
			return func() {
				// A lock left behind lapses with its lease: not worth failing
				// for, nor waiting long on a stalled database.
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
				defer cancel()
				err := table.Delete("account_id", accountID).Range("sk", skCreateLock).If("lock_owner = ?", owner).Run(ctx)
				if err != nil && !isCondFailed(err) {
					logging.From(ctx).Error("create lock not released: it lapses with its lease", "account_id", accountID, "error", err.Error())
				}
			}, nil
		}
		if !isCondFailed(err) && !isThrottled(err) {
			return nil, wrap(err, "take the create lock of account %d", accountID)
		}
		if err := waitTurn(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// releaseTimeout bounds the lock's release.
const releaseTimeout = time.Second

// waitTurn waits before asking for the lock again: exponentially longer,
// from 5 ms to 100 ms, with jitter, so that waiters do not hammer the item
// (a refused conditional write still costs a write unit).
func waitTurn(ctx context.Context, attempt int) error {
	d := min(5*time.Millisecond<<min(attempt, 5), 100*time.Millisecond)
	return sleepCtx(ctx, d/2+time.Duration(mathrand.Int64N(int64(d/2)+1)))
}

// newToken is a random token, 32 hex digits (a valid ClientRequestToken).
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
