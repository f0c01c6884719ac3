package dossier

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestCheckChangesInMarkdown: a check's changes and evidence read in
// words under it, escaped like any provider text.
func TestCheckChangesInMarkdown(t *testing.T) {
	tests := []struct {
		name   string
		result map[string]any
		want   []string
		absent []string
	}{
		{"registry changes", map[string]any{"status": "active", "changes": map[string]any{"previous_check_id": int64(7),
			"registration_status": map[string]any{"from": "valid", "to": "expired"},
			"legal_name":          map[string]any{"from": "Al Noor", "to": "Al *Noor* | Holding"}}},
			[]string{`since check 7: registration status "valid" → "expired"`, `legal name "Al Noor" → "Al \*Noor\* \| Holding"`}, nil},
		{"matches", map[string]any{"changes": map[string]any{"previous_check_id": int64(8),
			"matches_added": []any{map[string]any{"id": "NK-1", "score": 0.93}}, "matches_removed": []any{map[string]any{"id": "Q-2", "score": 0.71}}}},
			[]string{"matches added NK-1 (0.93)", "matches removed Q-2 (0.71)"}, nil},
		{"nothing changed", map[string]any{"changes": map[string]any{"previous_check_id": int64(9)}}, []string{"since check 9: none"}, nil},
		{"evidence", map[string]any{"evidence": map[string]any{"provider": "wathq", "http_status": 200, "size": 12, "sha256": "ab12"}},
			[]string{"evidence: wathq HTTP 200, 12 bytes, sha256 ab12"}, []string{"map["}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := EntityMarkdown(domain.EntityDetail{Entity: domain.Entity{ID: 1, LegalName: "E"},
				Checks: []domain.Check{{ID: 10, Type: domain.CheckRegistryLookup, Status: domain.CheckCompleted, Result: tt.result}}}, country.ISO())
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("missing %q in\n%s", w, md)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(md, a) {
					t.Errorf("%q in\n%s", a, md)
				}
			}
		})
	}
}

// Numbers read back from DynamoDB are float64: ids, sizes and counts must
// still print as the integers they are.
func TestCheckCellPrintsWholeNumbers(t *testing.T) {
	cell := checkResultCell(map[string]any{
		"matches_count": float64(1234567),
		"changes":       map[string]any{"previous_check_id": float64(1000000021), "matches_added": []any{map[string]any{"id": "NK-1", "score": 0.91}}},
		"evidence":      map[string]any{"provider": "wathq", "http_status": float64(200), "size": float64(1234567), "sha256": "ab"},
	})
	for _, want := range []string{"matches_count: 1234567", "since check 1000000021", "NK-1 (0.91)", "HTTP 200, 1234567 bytes"} {
		if !strings.Contains(cell, want) {
			t.Errorf("cell lacks %q: %s", want, cell)
		}
	}
	if strings.Contains(cell, "e+") {
		t.Errorf("a number in exponent form: %s", cell)
	}
}
