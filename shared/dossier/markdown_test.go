package dossier_test

import (
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

var (
	countries = country.ISO()
	at        = time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
)

func TestMarkdown(t *testing.T) {
	d := domain.EntityDetail{
		Entity: domain.Entity{ID: 5, LegalName: "Smith & Sons | *Holdings*", RegistrationNumber: "7001234567", CountryCode: "SA", CountryID: 682,
			Status: domain.EntityReadyForReview, UpdatedAt: at,
			Score: &domain.Score{Value: 70, Breakdown: []domain.ScoreComponent{{Key: "registry", Label: "Registry record", Points: 40, Max: 40}, {Key: "screening", Label: "Screening", Points: 30, Max: 30}}}},
		Checks:  []domain.Check{{ID: 8, Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, Result: map[string]any{"status": "clear", "matched": false, "matches_count": 0}, CreatedAt: at, UpdatedAt: at}},
		Reviews: []domain.Review{{ID: 9, Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}},
	}
	md := dossier.EntityMarkdown(d, countries)
	for _, want := range []string{
		`# Smith & Sons \| \*Holdings\*`,
		"- Risk level: Not assessed",
		"- Score: 70/100",
		"- Country: Saudi Arabia (SA, id 682)",
		"## Score breakdown",
		"| Registry record | 40 | 40 |",
		"| **Total** | **70** | 100 |",
		"## Checks (1)",
		`matches\_count: 0`,
		"[9](/api/v1/entity_reviews/9)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("entity markdown lacks %q:\n%s", want, md)
		}
	}
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: at}
	d.Entity.Score = nil
	md = dossier.ReviewMarkdown(d.Reviews[0], d.Entity, countries)
	for _, want := range []string{"# Review 9:", "- Risk level: low (assessed 2026-03-04T05:06:07.890Z)", "- Score: Not scored", "Not scored yet."} {
		if !strings.Contains(md, want) {
			t.Errorf("review markdown lacks %q:\n%s", want, md)
		}
	}
}
