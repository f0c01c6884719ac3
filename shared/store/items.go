package store

import (
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Items as stored. Timestamps are strings in domain.TimeLayout so that index
// order is time order; optional values are omitted rather than stored empty.

const (
	skAccount       = "ACCOUNT"
	skCountryPrefix = "COUNTRY#"
)

type accountItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	Name      string `dynamo:"name"`
	CreatedAt string `dynamo:"created_at"`
	// Counters kept in the same transaction as every entity create: they give
	// the list endpoint its totals and its page ranges without counting.
	EntityCount   int64            `dynamo:"entity_count"`
	LastEntityID  int64            `dynamo:"last_entity_id"`
	CountryCounts map[string]int64 `dynamo:"country_counts,allowempty"`
	// Review policies.
	FourEyes           []string `dynamo:"four_eyes,set,omitempty"`
	ReviewIntervalDays int      `dynamo:"review_interval_days,omitempty"`
}

type countryItem struct {
	AccountID           int64             `dynamo:"account_id,hash"`
	SK                  string            `dynamo:"sk,range"`
	CountryCode         string            `dynamo:"country_code"`
	CountryID           int               `dynamo:"country_id"`
	Active              bool              `dynamo:"active"`
	RegistrationPattern string            `dynamo:"registration_pattern,omitempty"`
	RegistrationMessage string            `dynamo:"registration_message,omitempty"`
	IntakeChecks        []intakeCheckItem `dynamo:"intake_checks,omitempty"`
	UpdatedAt           string            `dynamo:"updated_at"`
}

type apiKeyItem struct {
	KeyHash     string   `dynamo:"key_hash,hash"`
	KeyID       string   `dynamo:"key_id"`
	Prefix      string   `dynamo:"prefix"`
	AccountID   int64    `dynamo:"account_id"`
	Permissions []string `dynamo:"permissions,set,omitempty"`
	Description string   `dynamo:"description,omitempty"`
	CreatedAt   string   `dynamo:"created_at"`
	RevokedAt   string   `dynamo:"revoked_at,omitempty"`
}

type entityItem struct {
	AccountID          int64                `dynamo:"account_id,hash"`
	EntityID           int64                `dynamo:"entity_id,range"`
	Seq                int64                `dynamo:"seq"`
	CountrySeq         string               `dynamo:"country_seq"`
	RegistrationKey    string               `dynamo:"registration_key"`
	RegistrationNumber string               `dynamo:"registration_number"`
	LegalName          string               `dynamo:"legal_name"`
	CountryCode        string               `dynamo:"country_code"`
	CountryID          int                  `dynamo:"country_id"`
	Status             string               `dynamo:"status"`
	RegistrationStatus string               `dynamo:"registration_status"`
	SanctionsStatus    string               `dynamo:"sanctions_status"`
	CurrentScore       *int                 `dynamo:"current_score,omitempty"`
	ScoreBreakdown     []scoreComponentItem `dynamo:"score_breakdown,omitempty"`
	RiskLevel          string               `dynamo:"risk_level,omitempty"`
	RiskLevelUpdatedAt string               `dynamo:"risk_level_updated_at,omitempty"`
	WebsiteURL         *string              `dynamo:"website_url,omitempty"`
	SocialURL          *string              `dynamo:"social_url,omitempty"`
	ActivitySummary    *string              `dynamo:"business_activity_summary,omitempty"`
	DismissedMatches   []string             `dynamo:"dismissed_matches,set,omitempty"`
	RelationshipsCount int                  `dynamo:"current_relationships_count"`
	ReviewsCount       int                  `dynamo:"reviews_count"`
	DocumentsCount     int                  `dynamo:"documents_count"`
	ChecksCount        int                  `dynamo:"checks_count"`
	CreatedAt          string               `dynamo:"created_at"`
	UpdatedAt          string               `dynamo:"updated_at"`
	Version            int64                `dynamo:"version,omitempty"`
}

type checkItem struct {
	AccountID          int64          `dynamo:"account_id,hash"`
	CheckID            int64          `dynamo:"check_id,range"`
	EntityID           int64          `dynamo:"entity_id"`
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

type reviewItem struct {
	AccountID        int64   `dynamo:"account_id,hash"`
	ReviewID         int64   `dynamo:"review_id,range"`
	EntityID         int64   `dynamo:"entity_id"`
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

func countrySeqKey(country string, seq int64) string {
	return fmt.Sprintf("%s#%012d", country, seq)
}

func registrationKey(number, country string) string { return number + "#" + country }

func fmtTime(t time.Time) string { return domain.FormatTime(t) }

func fmtOptTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return domain.FormatTime(*t)
}

// parseTime reads a stored timestamp; a corrupt value reads as the zero time
// rather than failing the whole response.
func parseTime(s string) time.Time {
	t, _ := domain.ParseTime(s)
	return t
}

func parseOptTime(s string) *time.Time {
	if s == "" {
		return nil
	}
	t := parseTime(s)
	return &t
}

func (it entityItem) domain() domain.Entity {
	e := domain.Entity{
		AccountID:          it.AccountID,
		ID:                 it.EntityID,
		RegistrationNumber: it.RegistrationNumber,
		LegalName:          it.LegalName,
		CountryCode:        it.CountryCode,
		CountryID:          it.CountryID,
		Status:             domain.EntityStatus(it.Status),
		RegistrationStatus: domain.RegistrationStatus(it.RegistrationStatus),
		SanctionsStatus:    domain.SanctionsStatus(it.SanctionsStatus),
		WebsiteURL:         it.WebsiteURL,
		SocialURL:          it.SocialURL,
		ActivitySummary:    it.ActivitySummary,
		DismissedMatches:   it.DismissedMatches,
		Version:            it.Version,
		RelationshipsCount: it.RelationshipsCount,
		ReviewsCount:       it.ReviewsCount,
		DocumentsCount:     it.DocumentsCount,
		ChecksCount:        it.ChecksCount,
		CreatedAt:          parseTime(it.CreatedAt),
		UpdatedAt:          parseTime(it.UpdatedAt),
	}
	if it.CurrentScore != nil {
		e.Score = &domain.Score{Value: *it.CurrentScore, Breakdown: scoreComponents(it.ScoreBreakdown)}
	}
	// Only an assessment writes both fields; anything less is unassessed.
	if it.RiskLevel != "" && it.RiskLevelUpdatedAt != "" {
		e.Risk = &domain.RiskAssessment{Level: domain.RiskLevel(it.RiskLevel), AssessedAt: parseTime(it.RiskLevelUpdatedAt)}
	}
	return e
}

func newEntityItem(e domain.Entity, seq, countrySeq int64) entityItem {
	it := entityItem{
		AccountID:          e.AccountID,
		EntityID:           e.ID,
		Seq:                seq,
		CountrySeq:         countrySeqKey(e.CountryCode, countrySeq),
		RegistrationKey:    registrationKey(e.RegistrationNumber, e.CountryCode),
		RegistrationNumber: e.RegistrationNumber,
		LegalName:          e.LegalName,
		CountryCode:        e.CountryCode,
		CountryID:          e.CountryID,
		Status:             string(e.Status),
		RegistrationStatus: string(e.RegistrationStatus),
		SanctionsStatus:    string(e.SanctionsStatus),
		WebsiteURL:         e.WebsiteURL,
		SocialURL:          e.SocialURL,
		ActivitySummary:    e.ActivitySummary,
		DismissedMatches:   e.DismissedMatches,
		Version:            e.Version,
		RelationshipsCount: e.RelationshipsCount,
		ReviewsCount:       e.ReviewsCount,
		DocumentsCount:     e.DocumentsCount,
		ChecksCount:        e.ChecksCount,
		CreatedAt:          fmtTime(e.CreatedAt),
		UpdatedAt:          fmtTime(e.UpdatedAt),
	}
	if e.Score != nil {
		v := e.Score.Value
		it.CurrentScore = &v
		it.ScoreBreakdown = scoreComponentItems(e.Score.Breakdown)
	}
	if e.Risk != nil {
		it.RiskLevel = string(e.Risk.Level)
		it.RiskLevelUpdatedAt = fmtTime(e.Risk.AssessedAt)
	}
	return it
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

func (it countryItem) domain() domain.CountryConfig {
	return domain.CountryConfig{
		AccountID:           it.AccountID,
		CountryCode:         it.CountryCode,
		CountryID:           it.CountryID,
		Active:              it.Active,
		RegistrationPattern: it.RegistrationPattern,
		RegistrationMessage: it.RegistrationMessage,
		IntakeChecks:        intakeChecks(it.IntakeChecks),
		UpdatedAt:           parseTime(it.UpdatedAt),
	}
}

func (it apiKeyItem) domain() domain.APIKey {
	id := it.KeyID
	if id == "" {
		// Keys issued before ids existed.
		id = keyID(it.KeyHash)
	}
	return domain.APIKey{
		ID:          id,
		Description: it.Description,
		Hash:        it.KeyHash,
		Prefix:      it.Prefix,
		AccountID:   it.AccountID,
		Permissions: it.Permissions,
		CreatedAt:   parseTime(it.CreatedAt),
		RevokedAt:   parseOptTime(it.RevokedAt),
	}
}
