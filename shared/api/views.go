package api

import (
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

// The JSON views follow the contract field by field. Absent values are null,
// with the contract's exceptions: current_score is omitted until the entity is
// scored, and the risk fields follow the risk level rule (riskFields).

// entityIDJSON and entityStandingJSON are the parts of an entity that both
// its own view and a review's summary of it show, embedded where they stand.
type entityIDJSON struct {
	ID                 int64  `json:"id"`
	RegistrationNumber string `json:"registration_number"`
	LegalName          string `json:"legal_name"`
	CountryID          int    `json:"country_id"`
	Status             string `json:"status"`
}

type entityStandingJSON struct {
	CurrentScore       *int    `json:"current_score,omitempty"`
	RiskLevel          *string `json:"risk_level"`
	RiskLevelUpdatedAt *string `json:"risk_level_updated_at,omitempty"`
	RiskLevelAssessed  *bool   `json:"risk_level_assessed,omitempty"`
	SanctionsStatus    string  `json:"sanctions_status"`
}

type entityJSON struct {
	entityIDJSON
	Names              []nameJSON `json:"names"`
	RegistrationStatus string     `json:"registration_status"`
	entityStandingJSON
	WebsiteURL         *string      `json:"website_url"`
	SocialURL          *string      `json:"social_url"`
	ActivitySummary    *string      `json:"business_activity_summary"`
	UpdatedAt          string       `json:"updated_at"`
	RelationshipsCount int          `json:"current_relationships_count"`
	ReviewsCount       int          `json:"reviews_count"`
	DocumentsCount     int          `json:"documents_count"`
	ChecksCount        int          `json:"checks_count"`
	Checks             []checkJSON  `json:"checks"`
	Reviews            []reviewJSON `json:"reviews"`
}

// nameJSON is one name of the entity with where it came from.
type nameJSON struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

type checkJSON struct {
	ID                 int64          `json:"id"`
	CheckType          string         `json:"check_type"`
	ProviderKey        string         `json:"provider_key"`
	Status             string         `json:"status"`
	ProviderStatus     string         `json:"provider_status"`
	TriggeringReason   string         `json:"triggering_reason"`
	SubjectType        *string        `json:"subject_type"`
	SubjectID          *int64         `json:"subject_id"`
	SubjectDisplayName *string        `json:"subject_display_name"`
	Result             map[string]any `json:"result"`
	CheckedAt          *string        `json:"checked_at"`
	CreatedAt          string         `json:"created_at"`
	UpdatedAt          string         `json:"updated_at"`
}

// reviewStateJSON is where a review stands, as both its views show it.
type reviewStateJSON struct {
	Purpose        string  `json:"purpose"`
	Status         string  `json:"status"`
	Outcome        *string `json:"outcome"`
	OutcomeReason  *string `json:"outcome_reason"`
	AssignedUserID *int64  `json:"assigned_user_id"`
	// TriggeringReason is what opened the review when no person did
	// (provider_update: ongoing monitoring); null otherwise.
	TriggeringReason *string `json:"triggering_reason"`
}

type reviewJSON struct {
	ID int64 `json:"id"`
	reviewStateJSON
	AssignedUserName *string `json:"assigned_user_name"`
	StartedAt        *string `json:"started_at"`
	CompletedAt      *string `json:"completed_at"`
	CreatedAt        string  `json:"created_at"`
	UpdatedAt        string  `json:"updated_at"`
	APIPath          string  `json:"api_path"`
}

type entitySummaryJSON struct {
	entityIDJSON
	entityStandingJSON
}

type reviewDetailJSON struct {
	ID       int64 `json:"id"`
	EntityID int64 `json:"entity_id"`
	reviewStateJSON
	StartedAt   *string           `json:"started_at"`
	CompletedAt *string           `json:"completed_at"`
	UpdatedAt   string            `json:"updated_at"`
	Entity      entitySummaryJSON `json:"entity"`
	NotesCount  int               `json:"notes_count"`
	ChecksCount int               `json:"checks_count"`
}

type metaJSON struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

type entityListJSON struct {
	Entities []entityJSON `json:"entities"`
	Meta     metaJSON     `json:"meta"`
}

type reviewEnvelopeJSON struct {
	EntityReview reviewDetailJSON `json:"entity_review"`
}

// riskFields applies the risk level rule: an assessed entity has risk_level
// and risk_level_updated_at; an unassessed one has risk_level null and
// risk_level_assessed false, and never a level or a date.
func riskFields(r *domain.RiskAssessment) (level, updatedAt *string, assessed *bool) {
	if r == nil {
		f := false
		return nil, nil, &f
	}
	l, at := string(r.Level), timeString(r.AssessedAt)
	return &l, &at, nil
}

func scoreValue(s *domain.Score) *int {
	if s == nil {
		return nil
	}
	v := s.Value
	return &v
}

func timeString(t time.Time) string { return domain.FormatTime(t) }

// optString is s, or null for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := domain.FormatTime(*t)
	return &s
}

func entityIDView(e domain.Entity) entityIDJSON {
	return entityIDJSON{ID: e.ID, RegistrationNumber: e.RegistrationNumber, LegalName: e.LegalName, CountryID: e.CountryID, Status: string(e.Status)}
}

func entityStandingView(e domain.Entity) entityStandingJSON {
	level, at, assessed := riskFields(e.Risk)
	return entityStandingJSON{
		CurrentScore: scoreValue(e.Score), RiskLevel: level, RiskLevelUpdatedAt: at, RiskLevelAssessed: assessed,
		SanctionsStatus: string(e.SanctionsStatus),
	}
}

func entityView(e domain.Entity, checks []domain.Check, reviews []domain.Review) entityJSON {
	v := entityJSON{
		entityIDJSON:       entityIDView(e),
		Names:              make([]nameJSON, 0, len(e.Names)),
		RegistrationStatus: string(e.RegistrationStatus),
		entityStandingJSON: entityStandingView(e),
		WebsiteURL:         e.WebsiteURL,
		SocialURL:          e.SocialURL,
		ActivitySummary:    e.ActivitySummary,
		UpdatedAt:          timeString(e.UpdatedAt),
		RelationshipsCount: e.RelationshipsCount,
		ReviewsCount:       e.ReviewsCount,
		DocumentsCount:     e.DocumentsCount,
		ChecksCount:        e.ChecksCount,
		Checks:             make([]checkJSON, 0, len(checks)),
		Reviews:            make([]reviewJSON, 0, len(reviews)),
	}
	for _, n := range e.Names {
		v.Names = append(v.Names, nameJSON{Name: n.Name, Source: string(n.Source)})
	}
	for _, c := range checks {
		v.Checks = append(v.Checks, checkView(c))
	}
	for _, r := range reviews {
		v.Reviews = append(v.Reviews, reviewView(r))
	}
	return v
}

func checkView(c domain.Check) checkJSON {
	result := c.Result
	if result == nil {
		result = map[string]any{}
	}
	return checkJSON{
		ID:                 c.ID,
		CheckType:          string(c.Type),
		ProviderKey:        c.ProviderKey,
		Status:             string(c.Status),
		ProviderStatus:     c.ProviderStatus,
		TriggeringReason:   c.TriggeringReason,
		SubjectType:        c.SubjectType,
		SubjectID:          c.SubjectID,
		SubjectDisplayName: c.SubjectDisplayName,
		Result:             result,
		CheckedAt:          optTime(c.CheckedAt),
		CreatedAt:          timeString(c.CreatedAt),
		UpdatedAt:          timeString(c.UpdatedAt),
	}
}

// ReviewPath is the API path of a review.
func ReviewPath(id int64) string { return dossier.ReviewPath(id) }

func reviewStateView(r domain.Review) reviewStateJSON {
	return reviewStateJSON{
		Purpose: string(r.Purpose), Status: string(r.Status),
		Outcome: r.Outcome, OutcomeReason: r.OutcomeReason, AssignedUserID: r.AssignedUserID,
		TriggeringReason: optString(r.TriggeringReason),
	}
}

func reviewView(r domain.Review) reviewJSON {
	return reviewJSON{
		ID:               r.ID,
		reviewStateJSON:  reviewStateView(r),
		AssignedUserName: r.AssignedUserName,
		StartedAt:        optTime(r.StartedAt),
		CompletedAt:      optTime(r.CompletedAt),
		CreatedAt:        timeString(r.CreatedAt),
		UpdatedAt:        timeString(r.UpdatedAt),
		APIPath:          ReviewPath(r.ID),
	}
}

func reviewDetailView(r domain.Review, e domain.Entity) reviewEnvelopeJSON {
	return reviewEnvelopeJSON{EntityReview: reviewDetailJSON{
		ID:              r.ID,
		EntityID:        r.EntityID,
		reviewStateJSON: reviewStateView(r),
		StartedAt:       optTime(r.StartedAt),
		CompletedAt:     optTime(r.CompletedAt),
		UpdatedAt:       timeString(r.UpdatedAt),
		Entity:          entitySummaryJSON{entityIDView(e), entityStandingView(e)},
		NotesCount:      r.NotesCount,
		ChecksCount:     r.ChecksCount,
	}}
}
