package store

import (
	"context"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// EntitiesWithStatus returns the account's entities in the given statuses.
// It reads the account's whole partition, so it is for scheduled jobs (the
// daily periodic-review run), never for a request path.
func (s *Store) EntitiesWithStatus(ctx context.Context, accountID int64, statuses ...domain.EntityStatus) ([]domain.Entity, error) {
	want := map[string]bool{}
	for _, st := range statuses {
		want[string(st)] = true
	}
	var out []domain.Entity
	iter := s.table(schema.Entities).Get("account_id", accountID).Iter()
	var it entityItem
	for iter.Next(ctx, &it) {
		if want[it.Status] {
			out = append(out, it.domain())
		}
		it = entityItem{}
	}
	if err := iter.Err(); err != nil {
		return nil, wrap(err, "list entities of account %d", accountID)
	}
	return out, nil
}
