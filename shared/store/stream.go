package store

import (
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// ReviewFromImage reads a review from an image of the reviews table's
// stream, as Lambda delivers it; an image of nothing is an error. The store
// owns its items' form, so it decodes them wherever they come from; it
// reads no table.
func (*Store) ReviewFromImage(img map[string]events.DynamoDBAttributeValue) (domain.Review, error) {
	it, err := itemFromImage(img)
	if err != nil {
		return domain.Review{}, fmt.Errorf("decode review item: %w", err)
	}
	return reviewFromItem(it)
}

// reviewFromItem reads a review from a raw item of the reviews table.
func reviewFromItem(item map[string]types.AttributeValue) (domain.Review, error) {
	var it reviewItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return domain.Review{}, fmt.Errorf("decode review item: %w", err)
	}
	if it.AccountID == 0 || it.ReviewID == 0 || it.EntityID == 0 {
		return domain.Review{}, errors.New("decode review item: account_id, review_id and entity_id are required")
	}
	return it.domain(), nil
}

// itemFromImage turns a stream image (aws-lambda-go's form) into the SDK's
// item form, which guregu/dynamo decodes.
func itemFromImage(img map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	if img == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(img))
	for k, v := range img {
		av, err := attrFromImage(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

func attrFromImage(v events.DynamoDBAttributeValue) (types.AttributeValue, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		var l []types.AttributeValue
		for _, x := range v.List() {
			av, err := attrFromImage(x)
			if err != nil {
				return nil, err
			}
			l = append(l, av)
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case events.DataTypeMap:
		m, err := itemFromImage(v.Map())
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown attribute type %v", v.DataType())
}
