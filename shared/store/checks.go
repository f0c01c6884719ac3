package store

import (
	"context"
	"sort"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// EntityChecks returns the entity's checks, newest first.
func (s *Store) EntityChecks(ctx context.Context, accountID, entityID int64) ([]domain.Check, error) {
	var items []checkItem
	err := s.table(schema.Checks).Get("account_id", accountID).Range("entity_id", dynamo.Equal, entityID).
		Index(schema.ByEntity).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err, "list checks of entity %d", entityID)
	}
	out := make([]domain.Check, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	SortChecks(out)
	return out, nil
}

// SortChecks orders checks newest first: by creation time, then by id, which
// increases with creation.
func SortChecks(cs []domain.Check) {
	sort.SliceStable(cs, func(i, j int) bool {
		if !cs[i].CreatedAt.Equal(cs[j].CreatedAt) {
			return cs[i].CreatedAt.After(cs[j].CreatedAt)
		}
		return cs[i].ID > cs[j].ID
	})
}
