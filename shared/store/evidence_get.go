package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Evidence returns the provider's answer kept for the check, as stored
// (its hash not yet verified: domain.Evidence.Verify).
//
// Codes: not_found when nothing is kept for the check.
func (s *Store) Evidence(ctx context.Context, accountID, checkID int64) (domain.Evidence, error) {
	var it evidenceItem
	err := s.table(schema.Evidence).Get("account_id", accountID).Range("check_id", dynamo.Equal, checkID).Consistent(true).One(ctx, &it)
	if err != nil {
		return domain.Evidence{}, notFound(err, fmt.Sprintf("Evidence of check %d", checkID))
	}
	return it.domain(), nil
}
