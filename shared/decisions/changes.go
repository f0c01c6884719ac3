package decisions

import (
	"context"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// recordChanges adds to each re-run check that completed what changed
// since the previous completed check of its type for the entity
// (checks.Changes), in its result's changes.
func (s *Service) recordChanges(ctx context.Context, ent domain.Entity, rerun []domain.Check) error {
	earlier, err := s.Store.EntityChecks(ctx, ent.AccountID, ent.ID, ent.ChecksCount)
	if err != nil {
		return err
	}
	for i, c := range rerun {
		rerun[i] = checks.WithChanges(c, earlier, ent.DismissedMatches)
	}
	return nil
}
