package store

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/schema"
)

// Names of the service-wide id sequences in the counters table.
const (
	seqAccount = "account"
	seqEntity  = "entity"
	seqCheck   = "check"
	seqReview  = "review"
)

// nextIDs reserves n consecutive ids of the sequence and returns the first.
// The atomic ADD never conflicts; an id reserved by a write that then fails is
// skipped, never reused (ids need to be unique and increasing, not dense).
func (s *Store) nextIDs(ctx context.Context, seq string, n int) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	var out struct {
		Value int64 `dynamo:"value"`
	}
	err := s.table(schema.Counters).Update("name", seq).Add("value", n).Value(ctx, &out)
	if err != nil {
		return 0, fmt.Errorf("reserve %d %s ids: %w", n, seq, err)
	}
	return out.Value - int64(n) + 1, nil
}
