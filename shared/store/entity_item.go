package store

import (
	"fmt"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// entityItem is an entity as the entities table stores it, with the keys of
// its indexes: its id is its place in the account's sequence; country_key
// and country_seq place it in its country's.
type entityItem struct {
	AccountID          int64                `dynamo:"account_id,hash"`
	EntityID           int64                `dynamo:"entity_id,range"`
	CountryKey         string               `dynamo:"country_key"`
	CountrySeq         int64                `dynamo:"country_seq"`
	RegistrationNumber string               `dynamo:"registration_number"`
	LegalName          string               `dynamo:"legal_name"`
	Names              []entityNameItem     `dynamo:"names,omitempty"`
	Parties            []partyItem          `dynamo:"parties,omitempty"`
	Ownership          *ownershipItem       `dynamo:"ownership,omitempty"`
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
	ConfirmedMatches   []string             `dynamo:"confirmed_matches,set,omitempty"`
	// The end of the relationship and the end of its records' retention.
	RelationshipEndedAt string `dynamo:"relationship_ended_at,omitempty"`
	RetainUntil         string `dynamo:"retain_until,omitempty"`
	RelationshipsCount  int    `dynamo:"current_relationships_count"`
	ReviewsCount        int    `dynamo:"reviews_count"`
	DocumentsCount      int    `dynamo:"documents_count"`
	ChecksCount         int    `dynamo:"checks_count"`
	CreatedAt           string `dynamo:"created_at"`
	UpdatedAt           string `dynamo:"updated_at"`
	Version             int64  `dynamo:"version,omitempty"`
	// DossierRev is added 1 by every write to the entity, its checks or its
	// reviews (domain.Entity.DossierRev); absent on items written before it
	// existed, which read as 0.
	DossierRev int64 `dynamo:"dossier_rev,omitempty"`
}

// countryKey is the partition key of the per-country indexes.
func countryKey(accountID int64, country string) string {
	return fmt.Sprintf("%d#%s", accountID, country)
}

// setUpdatedAt stamps an entity update with its change time, the key that
// orders entities for updated_since: every write that changes an entity goes
// through here.
func setUpdatedAt(u *dynamo.Update, at string) *dynamo.Update {
	return u.Set("updated_at", at)
}

// nextDossierRev moves an entity's dossier to its next revision: every write
// that changes the entity, one of its checks or one of its reviews adds it
// to the entity's item in the same transaction, so the ETags of the
// dossier's representations (dossier.ETag) change with what they show.
func nextDossierRev(u *dynamo.Update) *dynamo.Update {
	return u.Add("dossier_rev", 1)
}

func (it entityItem) domain() domain.Entity {
	e := domain.Entity{
		AccountID:          it.AccountID,
		ID:                 it.EntityID,
		RegistrationNumber: it.RegistrationNumber,
		LegalName:          it.LegalName,
		Names:              entityNames(it.Names),
		Parties:            parties(it.AccountID, it.EntityID, it.Parties),
		Ownership:          it.Ownership.domain(),
		CountryCode:        it.CountryCode,
		CountryID:          it.CountryID,
		Status:             domain.EntityStatus(it.Status),
		RegistrationStatus: domain.RegistrationStatus(it.RegistrationStatus),
		SanctionsStatus:    domain.SanctionsStatus(it.SanctionsStatus),
		WebsiteURL:         it.WebsiteURL,
		SocialURL:          it.SocialURL,
		ActivitySummary:    it.ActivitySummary,
		DismissedMatches:   it.DismissedMatches,
		ConfirmedMatches:   it.ConfirmedMatches,
		Version:            it.Version,
		DossierRev:         it.DossierRev,
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
	if it.RelationshipEndedAt != "" && it.RetainUntil != "" {
		ended, until := parseTime(it.RelationshipEndedAt), parseTime(it.RetainUntil)
		e.RelationshipEndedAt, e.RetainUntil = &ended, &until
	}
	// Only an assessment writes both fields; anything less is unassessed.
	if it.RiskLevel != "" && it.RiskLevelUpdatedAt != "" {
		e.Risk = &domain.RiskAssessment{Level: domain.RiskLevel(it.RiskLevel), AssessedAt: parseTime(it.RiskLevelUpdatedAt)}
	}
	return e
}

func newEntityItem(e domain.Entity, countrySeq int64) entityItem {
	it := entityItem{
		AccountID:          e.AccountID,
		EntityID:           e.ID,
		CountryKey:         countryKey(e.AccountID, e.CountryCode),
		CountrySeq:         countrySeq,
		RegistrationNumber: e.RegistrationNumber,
		LegalName:          e.LegalName,
		Names:              entityNameItems(e.Names),
		Parties:            partyItems(e.Parties),
		Ownership:          newOwnershipItem(e.Ownership),
		CountryCode:        e.CountryCode,
		CountryID:          e.CountryID,
		Status:             string(e.Status),
		RegistrationStatus: string(e.RegistrationStatus),
		SanctionsStatus:    string(e.SanctionsStatus),
		WebsiteURL:         e.WebsiteURL,
		SocialURL:          e.SocialURL,
		ActivitySummary:    e.ActivitySummary,
		DismissedMatches:   e.DismissedMatches,
		ConfirmedMatches:   e.ConfirmedMatches,
		Version:            e.Version,
		DossierRev:         e.DossierRev,
		RelationshipsCount: domain.CurrentParties(e.Parties),
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
	if e.RelationshipEndedAt != nil && e.RetainUntil != nil {
		it.RelationshipEndedAt, it.RetainUntil = fmtTime(*e.RelationshipEndedAt), fmtTime(*e.RetainUntil)
	}
	return it
}

// entityNameItem is one name of an entity as its item keeps it. An item
// written before names were kept has none: its legal_name is all it knows.
type entityNameItem struct {
	Name   string `dynamo:"name"`
	Source string `dynamo:"source"`
}

func entityNameItems(ns []domain.EntityName) []entityNameItem {
	var out []entityNameItem
	for _, n := range ns {
		out = append(out, entityNameItem{Name: n.Name, Source: string(n.Source)})
	}
	return out
}

func entityNames(its []entityNameItem) []domain.EntityName {
	var out []domain.EntityName
	for _, it := range its {
		out = append(out, domain.EntityName{Name: it.Name, Source: domain.NameSource(it.Source)})
	}
	return out
}
