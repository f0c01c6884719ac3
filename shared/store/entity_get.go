package store

import (
	"context"
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
		if err != domain.ErrStale {
			return d, err
		}
	}
	return domain.EntityDetail{}, domain.Errorf(domain.ECodeUnavailable, "entity %d changed %d times while it was read; try again", id, snapshotTries)
}

// Dossier reads the checks and reviews of e, as read a moment ago, and then
// e's item again: it returns them with e if e's dossier is still at the
// revision read, and domain.ErrStale if a write moved it meanwhile. Every
// write to a check or review moves the entity's revision in its own
// transaction, and the reads are strongly consistent and follow the first
// read of e, so what it returns is exactly the dossier at e.DossierRev,
// never a mix of two: the body a revision's ETag names. A list the by_entity
// index shows short of the entity's count (a write it has not caught up
// with) is read again, waiting for it.
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
	now, err := s.Entity(ctx, e.AccountID, e.ID)
	if err != nil {
		return domain.EntityDetail{}, fmt.Errorf("read entity %d's dossier again: %w", e.ID, err)
	}
	if now.DossierRev != e.DossierRev {
		return domain.EntityDetail{}, domain.ErrStale
	}
	return d, nil
}
