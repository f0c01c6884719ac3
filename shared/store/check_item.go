package store

import "github.com/evs-kyb/evs/shared/domain"

// checkItem is a check as the checks table stores it.
type checkItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	CheckID   int64  `dynamo:"check_id,range"`
	EntityID  int64  `dynamo:"entity_id"`
	EntityKey string `dynamo:"entity_key"` // the by_entity index's partition key
	// Its TTL once its entity's relationship ended (retention.go).
	retainedFields
	ReviewID           *int64         `dynamo:"review_id,omitempty"`
	CheckType          string         `dynamo:"check_type"`
	ProviderKey        string         `dynamo:"provider_key"`
	Status             string         `dynamo:"status"`
	ProviderStatus     string         `dynamo:"provider_status"`
	TriggeringReason   string         `dynamo:"triggering_reason"`
	SubjectType        *string        `dynamo:"subject_type,omitempty"`
	SubjectID          *int64         `dynamo:"subject_id,omitempty"`
	SubjectDisplayName *string        `dynamo:"subject_display_name,omitempty"`
	Result             map[string]any `dynamo:"result,allowempty"`
	CheckedAt          string         `dynamo:"checked_at,omitempty"`
	CreatedAt          string         `dynamo:"created_at"`
	UpdatedAt          string         `dynamo:"updated_at"`
}

func (it checkItem) domain() domain.Check {
	return domain.Check{
		AccountID:          it.AccountID,
		ID:                 it.CheckID,
		EntityID:           it.EntityID,
		ReviewID:           it.ReviewID,
		Type:               domain.CheckType(it.CheckType),
		ProviderKey:        it.ProviderKey,
		Status:             domain.CheckStatus(it.Status),
		ProviderStatus:     it.ProviderStatus,
		TriggeringReason:   it.TriggeringReason,
		SubjectType:        it.SubjectType,
		SubjectID:          it.SubjectID,
		SubjectDisplayName: it.SubjectDisplayName,
		Result:             it.Result,
		CheckedAt:          parseOptTime(it.CheckedAt),
		CreatedAt:          parseTime(it.CreatedAt),
		UpdatedAt:          parseTime(it.UpdatedAt),
	}
}

func newCheckItem(c domain.Check) checkItem {
	result := c.Result
	if result == nil {
		result = map[string]any{}
	}
	return checkItem{
		AccountID:          c.AccountID,
		CheckID:            c.ID,
		EntityID:           c.EntityID,
		EntityKey:          entityKey(c.AccountID, c.EntityID),
		ReviewID:           c.ReviewID,
		CheckType:          string(c.Type),
		ProviderKey:        c.ProviderKey,
		Status:             string(c.Status),
		ProviderStatus:     c.ProviderStatus,
		TriggeringReason:   c.TriggeringReason,
		SubjectType:        c.SubjectType,
		SubjectID:          c.SubjectID,
		SubjectDisplayName: c.SubjectDisplayName,
		Result:             result,
		CheckedAt:          fmtOptTime(c.CheckedAt),
		CreatedAt:          fmtTime(c.CreatedAt),
		UpdatedAt:          fmtTime(c.UpdatedAt),
	}
}
