package main

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	oas "github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestTheDescriptionSaysWhatTheListDoes reads the list's query parameters
// as a client generator or a schema-driven fuzzer would: from each
// parameter's schema in openapi.yaml it makes values at and past every
// bound it declares (type, minimum, maximum, maxLength, pattern, example,
// default) and a few that break it in the usual ways (control characters,
// words for numbers, white space, another script), sends each alone to the
// local API, and holds what the API did to what the description says: a
// schema-valid value must be answered 200, a schema-invalid one refused with
// 422 on its field. Where the two part, the contract must explain why (the
// table below: paging falls back instead of refusing; a well-formed value
// may still name no country or no time); anything it does not explain fails.
func TestTheDescriptionSaysWhatTheListDoes(t *testing.T) {
	f := newFixture(t)
	c, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	op := c.Model().Paths.PathItems.GetOrZero("/api/v1/entities").Get
	sent := 0
	for _, p := range op.Parameters {
		if p.In != "query" {
			continue
		}
		for _, v := range generatedValues(p.Schema.Schema()) {
			q := url.Values{p.Name: {v}}
			u := f.srv.URL + "/api/v1/entities?" + q.Encode()
			req, err := http.NewRequest("GET", u, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+f.keyA)
			valid := len(c.RequestProblems(req)) == 0
			r := sendBad(t, "GET", u, f.keyA, nil)
			sent++
			switch {
			case valid && r.status == 200, !valid && r.status == 422 && refusedOn(t, r, p.Name):
				continue
			case r.status != 200 && r.status != 422:
				t.Errorf("%s=%q answered %d: %s", p.Name, v, r.status, r.body)
			case valid:
				if why := explainedRefusal(p.Name, v); why == "" {
					t.Errorf("%s=%q is schema-valid and was refused (%d %s), which the contract does not explain", p.Name, v, r.status, r.body)
				}
			default:
				if why := explainedFallback(p.Name, v); why == "" {
					t.Errorf("%s=%q is schema-invalid and was answered %d, which the contract does not explain", p.Name, v, r.status)
				}
			}
		}
	}
	if sent < 50 {
		t.Errorf("only %d generated requests: the description's parameters were not read", sent)
	}
}

// refusedOn: a 422 names the parameter's field.
func refusedOn(t *testing.T, r response, field string) bool {
	t.Helper()
	errs, _ := r.json(t)["errors"].(map[string]any)
	_, ok := errs[field]
	return ok
}

// explainedFallback is the contract's word for a schema-invalid value the
// API takes: paging never fails (a page or per_page that is not a positive
// integer is 1 or 50), so a word where the description types an integer
// is read as the default. A value that breaks a bound the description
// declares (a minimum, a maximum, a maxLength) and is taken is no fallback
// but a description that says a refusal the API does not make: unexplained.
func explainedFallback(name, v string) string {
	if name != "page" && name != "per_page" {
		return ""
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		return "a word where an integer goes falls back to the default"
	}
	return ""
}

// explainedRefusal is the contract's word for a schema-valid value the API
// refuses: a filter that cannot be understood is refused with 422 on its
// field. A pattern says the shape, not whether two letters are a country, a
// clean string a time, or white space a registration number; a control
// character or a bound is the description's to say, and unexplained here.
func explainedRefusal(name, v string) string {
	trimmed := strings.TrimSpace(v)
	clean := domain.TextProblem(trimmed, 64) == ""
	switch name {
	case "country_code":
		if len(trimmed) == 2 && clean && isLetters(trimmed) {
			if _, ok := country.ISO().ByAlpha2(trimmed); !ok {
				return "two letters of no country"
			}
		}
	case "updated_since":
		if _, err := api.ParseTimestamp(v); err != nil && clean {
			return "a clean string that is none of the description's time forms"
		}
	case "registration_number":
		n := domain.NormalizeRegistration(v)
		if n == "" || (len(n) > domain.MaxRegistrationNumber && domain.TextProblem(n, len(n)) == "") {
			return "blank, or over 64 bytes once normalised"
		}
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// generatedValues are the values a schema-driven generator tries for one
// parameter.
func generatedValues(s *oas.Schema) []string {
	out := []string{"", " ", "\x01", "\u0085", "\u202e", "شركة", strings.Repeat("9", 300)}
	if s.Default != nil {
		out = append(out, s.Default.Value)
	}
	if s.Example != nil {
		out = append(out, s.Example.Value)
	}
	if len(s.Type) > 0 && s.Type[0] == "integer" {
		out = append(out, "0", "1", "2", "-1", "1.5", "1e2", "abc", "200", "201", "9007199254740993")
		if s.Minimum != nil {
			m := int(*s.Minimum)
			out = append(out, strconv.Itoa(m-1), strconv.Itoa(m))
		}
		if s.Maximum != nil {
			m := int(*s.Maximum)
			out = append(out, strconv.Itoa(m), strconv.Itoa(m+1))
		}
		return out
	}
	out = append(out, "SA", "sa", " sa ", "ZZ", "S", "SAU", "7001234560", " 7001234560 ", "cn-0012",
		"2026-01-31T09:30:00Z", "2026-01-31", "20260131T093000Z", "2026-01-31T09:30:00", "\tSA\t", "S\tA")
	if s.MaxLength != nil {
		n := int(*s.MaxLength)
		out = append(out, strings.Repeat("A", n), strings.Repeat("A", n+1))
	}
	return out
}
