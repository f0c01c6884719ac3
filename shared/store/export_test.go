package store

import (
	"context"

	"github.com/evs-kyb/evs/shared/domain"
)

// Internals the external tests check directly.
const FirstSideRound = firstSideRound

var (
	ReviewFromItem = reviewFromItem
	ItemFromImage  = itemFromImage
)

// PageOfMatches places a page among matches read as entity ids (an id is
// its place in the account's sequence), as an updated_since listing does
// once its matching side ended.
func (s *Store) PageOfMatches(ctx context.Context, accountID int64, read []int64, page, perPage int) (domain.EntityPage, error) {
	keys := make([]updatedKey, len(read))
	for i, id := range read {
		keys[i] = updatedKey{EntityID: id}
	}
	out, _, err := s.pageOfMatches(ctx, accountID, "", keys, page, perPage)
	return out, err
}
