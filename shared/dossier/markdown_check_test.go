package dossier

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestReadable: every value a check's result can hold reads as text a
// person would write, never in Go's syntax.
func TestReadable(t *testing.T) {
	five := 5
	var none *int
	match := map[string]any{"id": "NK-sim-hit", "caption": "Unnamed Company", "schema": "Company", "score": 0.93,
		"datasets": []any{"us_ofac_sdn", "eu_fsf"}}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nothing", nil, "—"},
		{"text as is", "provider timed out", "provider timed out"},
		{"empty text as a dash", "", "—"},
		{"a named text type as its text", domain.SanctionsStatus("clear"), "clear"},
		{"true", true, "true"},
		{"a whole number read back as float64, without an exponent", float64(1000000021), "1000000021"},
		{"a fraction", 0.93, "0.93"},
		{"a small fraction, without an exponent", 1e-7, "0.0000001"},
		{"an int64", int64(-42), "-42"},
		{"a pointer as what it points to", &five, "5"},
		{"a nil pointer as a dash", none, "—"},
		{"a list comma-separated", []any{"us_ofac_sdn", "eu_fsf"}, "us_ofac_sdn, eu_fsf"},
		{"a typed list likewise", []string{"a", "b"}, "a, b"},
		{"an empty list as none", []any{}, "none"},
		{"lists in a list bracketed", []any{[]any{1, 2}, []any{3}}, "(1, 2), (3)"},
		{"a map as key: value pairs in key order", map[string]any{"size": float64(12), "provider": "wathq"}, "provider: wathq, size: 12"},
		{"a map in a map bracketed", map[string]any{"request": map[string]any{"method": "GET", "url": "https://x"}, "stored": true},
			"request: (method: GET, url: https://x), stored: true"},
		{"maps in a list bracketed", []any{map[string]any{"a": 1}, map[string]any{"b": 2}}, "(a: 1), (b: 2)"},
		{"an empty map as none", map[string]any{}, "none"},
		{"a map with other keys than text", map[int]string{2: "b", 1: "a"}, "1: a, 2: b"},
		{"a match as its name, then score first and its other fields", match,
			"Unnamed Company (score 0.93; datasets us_ofac_sdn, eu_fsf; id NK-sim-hit; schema Company)"},
		{"a match named by name", map[string]any{"id": "NK-1", "name": "Smith Holdings", "score": 0.91}, "Smith Holdings (score 0.91; id NK-1)"},
		{"a name alone", map[string]any{"caption": "Smith Holdings"}, "Smith Holdings"},
		{"an empty caption names nothing", map[string]any{"caption": "", "id": "X"}, "caption: —, id: X"},
		{"matches in a list, each by name", []any{match, map[string]any{"caption": "Q Ltd", "id": "Q-2", "score": 0.71}},
			"Unnamed Company (score 0.93; datasets us_ofac_sdn, eu_fsf; id NK-sim-hit; schema Company), Q Ltd (score 0.71; id Q-2)"},
		{"a struct as its JSON would read", struct {
			At   time.Time `json:"at"`
			Size int       `json:"size"`
		}{time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), 3}, "at: 2026-03-04T05:06:07Z, size: 3"},
	}
	goSyntax := regexp.MustCompile(`map\[|[\[\]{}]|<nil>|%!`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readable(tt.v)
			if got != tt.want {
				t.Errorf("readable(%#v) = %q, want %q", tt.v, got, tt.want)
			}
			if goSyntax.MatchString(got) {
				t.Errorf("Go syntax in %q", got)
			}
		})
	}
}

// TestCheckResultInMarkdown: a check's result, its changes and evidence
// read in words in its Result cell, escaped like any provider text, and
// never break the table's row.
func TestCheckResultInMarkdown(t *testing.T) {
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
		{"a screening's matches by name, score, lists and id", map[string]any{"status": "hit", "matches_count": float64(1),
			"matches": []any{map[string]any{"id": "NK-sim-hit", "caption": "Unnamed Company", "schema": "Company", "score": 0.93,
				"datasets": []any{"us_ofac_sdn", "eu_fsf"}}}},
			[]string{`matches: Unnamed Company (score 0.93; datasets us\_ofac\_sdn, eu\_fsf; id NK-sim-hit; schema Company), matches\_count: 1, status: hit`},
			[]string{"map", `\[`}},
		{"no matches", map[string]any{"matched": false, "matches": []any{}}, []string{"matched: false, matches: none"}, []string{`\[`}},
		{"a match's name that would break the table", map[string]any{"matches": []any{map[string]any{"id": "X|1", "caption": "Evil | Co\nLtd [1]"}}},
			[]string{`matches: Evil \| Co Ltd \[1\] (id X\|1)`}, nil},
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
			// The header has 8 columns; the check's row must still have 8.
			for line := range strings.Lines(md) {
				if strings.HasPrefix(line, "| 10 |") {
					if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 9 {
						t.Errorf("the check's row has %d unescaped |, want 9: %s", n, line)
					}
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
