package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Entity returns one entity of the account. Another account's id is simply
// not found: the key starts with the account id.
func (s *Store) Entity(ctx context.Context, accountID, id int64) (domain.Entity, error) {
	var it entityItem
	err := s.table(schema.Entities).Get("account_id", accountID).Range("entity_id", dynamo.Equal, id).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Entity{}, wrap(notFound(err, "Entity"), "get entity %d", id)
	}
	return it.domain(), nil
}

// snapshotTries bounds how often EntityDetail reads a dossier that keeps
// moving under it: each move is a committed write, so more than a few in
// the milliseconds of one read is a storm worth a retry later.
const snapshotTries = 4

// EntityDetail returns an entity with its checks and reviews as they stood
// at one revision of its dossier (see Dossier).
func (s *Store) EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error) {
	for range snapshotTries {
		e, err := s.Entity(ctx, accountID, id)
		if err != nil {
			return domain.EntityDetail{}, err
		}
		d, err := s.Dossier(ctx, e)
		if !errors.Is(err, domain.ErrStale) {
			return d, err
		}
	}
	return domain.EntityDetail{}, domain.Errorf(domain.ECodeUnavailable, "entity %d changed %d times while it was read; try again", id, snapshotTries)
}

// Dossier reads the checks and reviews of e, as read a moment ago, and then
// e's item again: it returns them with e if e's dossier is still at the
// revision read, and domain.ErrStale if a write moved it meanwhile. Every
// write to a check or review moves the entity's revision in its own
// transaction, and every read is strongly consistent and follows the first
// read of e, so what it returns is the dossier at e.DossierRev: the body a
// revision's ETag names. (Each item read is serializable with transactions;
// BatchGetItem is not as a whole, so a transaction still committing while
// the children are read is caught by the second read of e in practice, not
// by a guarantee: TransactGetItems of the entity and its children would make
// it one, up to 100 items.) A list the by_entity index shows short of the
// entity's count (a write it has not caught up with) is read again, waiting
// for it; still short after that, the read is unavailable rather than a
// partial dossier under a whole one's tag.
func (s *Store) Dossier(ctx context.Context, e domain.Entity) (domain.EntityDetail, error) {
	d := domain.EntityDetail{Entity: e}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { d.Checks, err = s.EntityChecks(gctx, e.AccountID, e.ID, e.ChecksCount); return err })
	g.Go(func() (err error) {
		d.Reviews, err = s.EntityReviews(gctx, e.AccountID, e.ID, e.ReviewsCount)
		return err
	})
	if err := g.Wait(); err != nil {
		return domain.EntityDetail{}, err
	}
	if len(d.Checks) < e.ChecksCount || len(d.Reviews) < e.ReviewsCount {
		return domain.EntityDetail{}, domain.Errorf(domain.ECodeUnavailable, "entity %d's checks or reviews are not all indexed yet (%d of %d checks, %d of %d reviews); try again shortly",
			e.ID, len(d.Checks), e.ChecksCount, len(d.Reviews), e.ReviewsCount)
	}
	now, err := s.Entity(ctx, e.AccountID, e.ID)
	if err != nil {
		return domain.EntityDetail{}, fmt.Errorf("read entity %d's dossier again: %w", e.ID, err)
	}
	if now.DossierRev != e.DossierRev {
		return domain.EntityDetail{}, domain.ErrStale
	}
	return d, nil
}
