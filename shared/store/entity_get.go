package store

import (
	"context"

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

// EntityDetail returns an entity with its checks and reviews, reading the
// three in parallel. A list the by_entity index showed short of the entity's
// count (a write it has not caught up with) is read again, waiting for it.
func (s *Store) EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error) {
	var d domain.EntityDetail
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { d.Entity, err = s.Entity(gctx, accountID, id); return err })
	g.Go(func() (err error) { d.Checks, err = s.EntityChecks(gctx, accountID, id, 0); return err })
	g.Go(func() (err error) { d.Reviews, err = s.EntityReviews(gctx, accountID, id, 0); return err })
	if err := g.Wait(); err != nil {
		return domain.EntityDetail{}, err
	}
	e := d.Entity
	g, gctx = errgroup.WithContext(ctx)
	if len(d.Checks) < e.ChecksCount {
		g.Go(func() (err error) { d.Checks, err = s.EntityChecks(gctx, accountID, id, e.ChecksCount); return err })
	}
	if len(d.Reviews) < e.ReviewsCount {
		g.Go(func() (err error) { d.Reviews, err = s.EntityReviews(gctx, accountID, id, e.ReviewsCount); return err })
	}
	if err := g.Wait(); err != nil {
		return domain.EntityDetail{}, err
	}
	return d, nil
}
