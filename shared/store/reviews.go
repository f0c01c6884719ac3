package store

import (
	"context"
	"sort"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Review returns one review of the account.
func (s *Store) Review(ctx context.Context, accountID, id int64) (domain.Review, error) {
	var it reviewItem
	err := s.table(schema.Reviews).Get("account_id", accountID).Range("review_id", dynamo.Equal, id).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Review{}, wrap(notFound(err, "Review"), "get review %d", id)
	}
	return it.domain(), nil
}

// EntityReviews returns the entity's reviews as they are now, active ones
// (open, in_progress, escalated) before finished ones, newest first within
// each group. want is the entity's ReviewsCount (0 if unknown), as for
// EntityChecks.
func (s *Store) EntityReviews(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error) {
	items, err := entityChildren[reviewItem](ctx, s, schema.Reviews, "review_id", accountID, entityID, want)
	if err != nil {
		return nil, wrap(err, "list reviews of entity %d", entityID)
	}
	out := make([]domain.Review, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	SortReviews(out)
	return out, nil
}

// SortReviews orders reviews active first, then newest first.
func SortReviews(rs []domain.Review) {
	sort.SliceStable(rs, func(i, j int) bool {
		ai, aj := rs[i].Status.Active(), rs[j].Status.Active()
		if ai != aj {
			return ai
		}
		return rs[i].ID > rs[j].ID
	})
}
