package store

import "github.com/evs-kyb/evs/shared/domain"

// reviewItem is a review as the reviews table stores it.
type reviewItem struct {
	AccountID        int64   `dynamo:"account_id,hash"`
	ReviewID         int64   `dynamo:"review_id,range"`
	EntityID         int64   `dynamo:"entity_id"`
	EntityKey        string  `dynamo:"entity_key"` // the by_entity index's partition key
	Purpose          string  `dynamo:"purpose"`
	Status           string  `dynamo:"status"`
	Outcome          *string `dynamo:"outcome,omitempty"`
	OutcomeReason    *string `dynamo:"outcome_reason,omitempty"`
	AssignedUserID   *int64  `dynamo:"assigned_user_id,omitempty"`
	AssignedUserName *string `dynamo:"assigned_user_name,omitempty"`
	NotesCount       int     `dynamo:"notes_count"`
	ChecksCount      int     `dynamo:"checks_count"`
	Escalation       *string `dynamo:"escalation,omitempty"`
	ChecksQueuedAt   string  `dynamo:"checks_queued_at,omitempty"`
	Version          int64   `dynamo:"version,omitempty"`
	StartedAt        string  `dynamo:"started_at,omitempty"`
	CompletedAt      string  `dynamo:"completed_at,omitempty"`
	CreatedAt        string  `dynamo:"created_at"`
	UpdatedAt        string  `dynamo:"updated_at"`
}

func (it reviewItem) domain() domain.Review {
	return domain.Review{
		AccountID:        it.AccountID,
		ID:               it.ReviewID,
		EntityID:         it.EntityID,
		Purpose:          domain.ReviewPurpose(it.Purpose),
		Status:           domain.ReviewStatus(it.Status),
		Outcome:          it.Outcome,
		OutcomeReason:    it.OutcomeReason,
		AssignedUserID:   it.AssignedUserID,
		AssignedUserName: it.AssignedUserName,
		NotesCount:       it.NotesCount,
		ChecksCount:      it.ChecksCount,
		Escalation:       it.Escalation,
		ChecksQueuedAt:   parseOptTime(it.ChecksQueuedAt),
		Version:          it.Version,
		StartedAt:        parseOptTime(it.StartedAt),
		CompletedAt:      parseOptTime(it.CompletedAt),
		CreatedAt:        parseTime(it.CreatedAt),
		UpdatedAt:        parseTime(it.UpdatedAt),
	}
}

func newReviewItem(r domain.Review) reviewItem {
	return reviewItem{
		AccountID:        r.AccountID,
		ReviewID:         r.ID,
		EntityID:         r.EntityID,
		EntityKey:        entityKey(r.AccountID, r.EntityID),
		Purpose:          string(r.Purpose),
		Status:           string(r.Status),
		Outcome:          r.Outcome,
		OutcomeReason:    r.OutcomeReason,
		AssignedUserID:   r.AssignedUserID,
		AssignedUserName: r.AssignedUserName,
		NotesCount:       r.NotesCount,
		ChecksCount:      r.ChecksCount,
		Escalation:       r.Escalation,
		ChecksQueuedAt:   fmtOptTime(r.ChecksQueuedAt),
		Version:          r.Version,
		StartedAt:        fmtOptTime(r.StartedAt),
		CompletedAt:      fmtOptTime(r.CompletedAt),
		CreatedAt:        fmtTime(r.CreatedAt),
		UpdatedAt:        fmtTime(r.UpdatedAt),
	}
}
