package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

var recordRendering = flag.Bool("record-rendering", false,
	"write testdata/dossier-v<RenderVersion>.txt when no rendering is recorded for dossier.RenderVersion yet")

// renderingFixtures are dossiers that between them set every field either
// form shows: a change to how any of them is rendered shows in the bytes.
func renderingFixtures() []domain.EntityDetail {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	later := at.Add(26 * time.Hour)
	review, operator, party := int64(9), int64(4), int64(12)
	outcome, reason, name, esc := "approved", "Registry and screening clear", "Noura", domain.EscalationAML
	site, social, activity := "https://smith.example.sa", "https://x.example/smith", "Wholesale of *dates* | exports"
	subjectType, subjectName := "party", "Fahad Al-Harbi"
	ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.example/commercialregistration/7001234567", 200, []byte(`{"crName":"Smith"}`), at)
	rich := domain.EntityDetail{
		Entity: domain.Entity{AccountID: 1, ID: 1000000005, LegalName: "Smith & Sons | *Holdings*", RegistrationNumber: "7001234567",
			CountryCode: "SA", CountryID: 682, Status: domain.EntityApproved, RegistrationStatus: domain.RegistrationStatus("active"),
			SanctionsStatus: domain.SanctionsStatus("clear"), WebsiteURL: &site, SocialURL: &social, ActivitySummary: &activity,
			DismissedMatches: []string{"NK-weak"}, RelationshipsCount: 2, ReviewsCount: 2, DocumentsCount: 3, ChecksCount: 3,
			CreatedAt: at, UpdatedAt: later, Version: 4, DossierRev: 7,
			Score: &domain.Score{Value: 70, Breakdown: []domain.ScoreComponent{{Key: "registry", Label: "Registry record", Points: 40, Max: 40}, {Key: "screening", Label: "Screening", Points: 30, Max: 60}}},
			Risk:  &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: later}},
		Checks: []domain.Check{
			{AccountID: 1, ID: 1000000021, EntityID: 1000000005, ReviewID: &review, Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions",
				Status: domain.CheckCompleted, ProviderStatus: "done", TriggeringReason: "periodic_review",
				// As read back from DynamoDB (numbers are float64), with the
				// keys checks.ScreeningResultMap stores, a match's included.
				Result: readBack(map[string]any{"status": "possible_match", "matched": true, "matches_count": 1,
					"top_score": 0.91, "threshold": 0.7, "algorithm": "logic-v1", "dataset": "default",
					"matches": []any{map[string]any{"id": "NK-1", "caption": "Smith Holdings", "schema": "Company", "score": 0.91,
						"datasets": []string{"us_ofac_sdn", "eu_fsf"}}},
					"changes":  map[string]any{"previous_check_id": 1000000017, "matches_added": []any{map[string]any{"id": "NK-1", "score": 0.91}}},
					"evidence": ev.ResultMap()}),
				CheckedAt: &later, CreatedAt: later, UpdatedAt: later},
			{AccountID: 1, ID: 1000000020, EntityID: 1000000005, Type: domain.CheckType("party_screening"), ProviderKey: "opensanctions",
				Status: domain.CheckPending, SubjectType: &subjectType, SubjectID: &party, SubjectDisplayName: &subjectName,
				CreatedAt: at, UpdatedAt: at},
			{AccountID: 1, ID: 1000000019, EntityID: 1000000005, Type: domain.CheckType("registry_lookup"), ProviderKey: "wathq",
				Status: domain.CheckStatus("failed"), ProviderStatus: "timeout", Result: map[string]any{"error": "provider timed out"},
				CreatedAt: at, UpdatedAt: at},
		},
		Reviews: []domain.Review{
			{AccountID: 1, ID: 9, EntityID: 1000000005, Purpose: domain.ReviewPurpose("periodic"), Status: domain.ReviewCompleted, Outcome: &outcome,
				OutcomeReason: &reason, AssignedUserID: &operator, AssignedUserName: &name, NotesCount: 2, ChecksCount: 1, Escalation: &esc,
				ChecksQueuedAt: &later, StartedAt: &later, CompletedAt: &later, CreatedAt: at, UpdatedAt: later, Version: 5},
			{AccountID: 1, ID: 8, EntityID: 1000000005, Purpose: domain.ReviewInitial, Status: domain.ReviewCancelled, CreatedAt: at, UpdatedAt: at},
		},
	}
	bare := domain.EntityDetail{Entity: domain.Entity{AccountID: 1, ID: 1000000006, RegistrationNumber: "HRB 1234", CountryCode: "DE", CountryID: 276,
		Status: domain.EntityStatus("pending"), CreatedAt: at, UpdatedAt: at, DossierRev: 1}}
	unknownCountry := bare
	unknownCountry.Entity.CountryCode, unknownCountry.Entity.CountryID = "ZZ", 0
	return []domain.EntityDetail{rich, bare, unknownCountry}
}

// readBack is a result as the store reads it back: through JSON-like
// decoding, so every number is a float64.
func readBack(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// rendering is every fixture in both forms, and every review of them in
// both forms, as GET answers them.
func rendering() []byte {
	var b bytes.Buffer
	for _, d := range renderingFixtures() {
		fmt.Fprintf(&b, "=== entity %d json\n%s\n=== entity %d markdown\n%s\n", d.Entity.ID, marshalBody(EntityView(d)), d.Entity.ID, dossier.EntityMarkdown(d, countries))
		for _, r := range d.Reviews {
			fmt.Fprintf(&b, "=== review %d json\n%s\n=== review %d markdown\n%s\n", r.ID, marshalBody(reviewDetailView(r, d.Entity)), r.ID, dossier.ReviewMarkdown(r, d.Entity, countries))
		}
	}
	return b.Bytes()
}

// TestRenderVersionPinsTheRendering: an entity's ETag is of its dossier's
// revision and dossier.RenderVersion, not of the bytes, so the bytes one
// RenderVersion gives for the same records are recorded here and must not
// change. A change to the rendering fails this test until RenderVersion is
// raised (then `go test ./shared/api -run TestRenderVersionPinsTheRendering
// -record-rendering` records the new version's bytes; the old file may go).
func TestRenderVersionPinsTheRendering(t *testing.T) {
	path := filepath.Join("testdata", fmt.Sprintf("dossier-v%d.txt", dossier.RenderVersion))
	got := rendering()
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) && *recordRendering {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", path)
		return
	}
	if err != nil {
		t.Fatalf("no rendering recorded for dossier.RenderVersion %d (%v): record it with -record-rendering", dossier.RenderVersion, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the entity or review representations changed for the same records, but dossier.RenderVersion is still %d: "+
			"clients holding an ETag would keep the old bytes. Raise RenderVersion and record the new rendering with -record-rendering.\n%s",
			dossier.RenderVersion, firstDifference(want, got))
	}
}

// firstDifference shows the first line where two renderings part.
func firstDifference(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return fmt.Sprintf("line %d:\n  recorded: %s\n  now:      %s", i+1, wl, gl)
		}
	}
	return ""
}
