package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// ReviewFromItem reads a review from a raw item of the reviews table, as a
// stream record's image carries it.
func ReviewFromItem(item map[string]types.AttributeValue) (domain.Review, error) {
	var it reviewItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return domain.Review{}, fmt.Errorf("decode review item: %w", err)
	}
	if it.AccountID == 0 || it.ReviewID == 0 || it.EntityID == 0 {
		return domain.Review{}, fmt.Errorf("decode review item: account_id, review_id and entity_id are required")
	}
	return it.domain(), nil
}
