package store

import (
	"context"
	"sort"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// EntityChecks returns the entity's checks as they are now, newest first.
// want is the entity's ChecksCount (0 if unknown): a check just written
// reaches the by_entity index a moment later, and the listing waits for it
// (entity_children.go).
func (s *Store) EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error) {
	items, err := entityChildren[checkItem](ctx, s, schema.Checks, "check_id", accountID, entityID, want)
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
