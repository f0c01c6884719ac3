package store

import (
	"reflect"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

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
	// What the queue shows and filters on of the review's entity, copied
	// by the writes that know it (the entity's create, a decision that
	// changes the entity): its country never changes, its name is for
	// display. A write that does not know them leaves them as they are.
	EntityCountry string `dynamo:"entity_country,omitempty"`
	EntityName    string `dynamo:"entity_name,omitempty"`
	// QueueKey is the review's place in the by_queue index
	// (domain.QueuePosition), written only while the review is active: a
	// finished review leaves the index with the write that finishes it.
	QueueKey string `dynamo:"queue_key,omitempty"`
	// TriggeringReason is domain.Review's: what opened the review, when it
	// places it in the queue apart (domain.QueuePositionOf).
	TriggeringReason string `dynamo:"triggering_reason,omitempty"`
}

// isEntityCopy names the attributes of reviewItem copied from the entity.
func isEntityCopy(attr string) bool { return attr == "entity_country" || attr == "entity_name" }

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
		TriggeringReason: it.TriggeringReason,
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
		QueueKey:         queueKey(r),
		TriggeringReason: r.TriggeringReason,
	}
}

// queueKey places an active review in the queue; "" (no attribute, out of
// the index) for any other.
func queueKey(r domain.Review) string {
	if !r.Status.Active() {
		return ""
	}
	return domain.QueuePositionOf(r)
}

// of copies onto the item what the queue shows of the review's entity.
func (it reviewItem) of(e *domain.Entity) reviewItem {
	if e != nil {
		it.EntityCountry, it.EntityName = e.CountryCode, e.LegalName
	}
	return it
}

// reviewUpdate writes it over the stored review as a Put would, attribute
// by attribute (an empty one removed), but for the entity's copies when
// it does not know them: a decision that changes only the review keeps
// what the entity's create copied. The attributes come from reviewItem's
// tags, so a field added there is written here too.
func (s *Store) reviewUpdate(it reviewItem) *dynamo.Update {
	u := s.table(schema.Reviews).Update("account_id", it.AccountID).Range("review_id", it.ReviewID)
	v := reflect.ValueOf(it)
	for i := range v.NumField() {
		name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("dynamo"), ",")
		if opts == "hash" || opts == "range" {
			continue
		}
		val := v.Field(i).Interface()
		if isEntityCopy(name) && val == "" {
			continue
		}
		u.Set(name, val)
	}
	return u
}
