package seed

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// dims records which values of each dimension a data set shows.
type dims map[string]map[string]bool

func (s dims) add(dim string, v any) {
	if s[dim] == nil {
		s[dim] = map[string]bool{}
	}
	s[dim][fmt.Sprint(v)] = true
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func isSet[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return "set"
}

const markdownSpecials = "&|*_[]`<>#\\"

func survey(ds []domain.EntityDetail) dims {
	s := dims{}
	for _, d := range ds {
		e := d.Entity
		s.add("entity_status", e.Status)
		s.add("registration_status", e.RegistrationStatus)
		s.add("sanctions_status", e.SanctionsStatus)
		if e.Risk == nil {
			s.add("risk", "unassessed")
		} else {
			s.add("risk", e.Risk.Level)
		}
		s.add("score", isSet(e.Score))
		s.add("country", e.CountryCode)
		s.add("website", isSet(e.WebsiteURL))
		s.add("social", isSet(e.SocialURL))
		s.add("activity", isSet(e.ActivitySummary))
		s.add("markdown_name", strings.ContainsAny(e.LegalName, markdownSpecials))
		s.add("updated_last_week", !e.UpdatedAt.Before(nowUTC.Add(-7*24*time.Hour)))
		s.add("checks_count", len(d.Checks))
		s.add("reviews_count", len(d.Reviews))
		s.add("relationships_count", e.RelationshipsCount)
		for _, ch := range d.Checks {
			s.add("check_status", ch.Status)
			s.add("check_type", ch.Type)
			s.add("check_status/"+string(ch.Type), ch.Status)
			s.add("trigger", ch.TriggeringReason)
			s.add("subject", isSet(ch.SubjectType))
			s.add("result_status/"+string(ch.Type), ch.Result["status"])
		}
		for _, rv := range d.Reviews {
			s.add("review_status", rv.Status)
			s.add("review_purpose", rv.Purpose)
			s.add("notes_count", rv.NotesCount)
			if rv.Outcome != nil {
				s.add("outcome", *rv.Outcome)
				s.add("outcome_reason", *rv.OutcomeReason)
			}
		}
	}
	return s
}

func TestDemoCoverage(t *testing.T) {
	cases := []struct {
		dim  string
		want []string
	}{
		{"entity_status", strs(domain.EntityStatuses())},
		{"registration_status", strs(domain.RegistrationStatuses())},
		{"sanctions_status", strs(domain.SanctionsStatuses())},
		{"risk", append(strs(domain.RiskLevels()), "unassessed")},
		{"score", []string{"set", "nil"}},
		{"country", []string{"SA", "AE"}},
		{"website", []string{"set", "nil"}},
		{"social", []string{"set", "nil"}},
		{"activity", []string{"set", "nil"}},
		{"markdown_name", []string{"true", "false"}},
		{"updated_last_week", []string{"true", "false"}},
		{"checks_count", []string{"0", "1", "2", "3"}},
		{"reviews_count", []string{"0", "1", "2"}},
		{"relationships_count", []string{"0", "1", "2", "3", "4"}},
		{"check_status", strs(domain.CheckStatuses())},
		{"check_type", strs(domain.CheckTypes())},
		{"check_status/registry_lookup", strs(domain.CheckStatuses())},
		{"check_status/organization_screening", strs(domain.CheckStatuses())},
		{"trigger", []string{domain.TriggerIntake, domain.TriggerOperatorRequested, domain.TriggerPeriodicReview}},
		{"subject", []string{"set", "nil"}},
		{"result_status/organization_screening", []string{"clear", "hit", "needs_review", "pending", "running", "failed"}},
		{"result_status/registry_lookup", []string{"active", "suspended", "expired", "pending", "running", "failed"}},
		{"review_status", strs(domain.ReviewStatuses())},
		{"review_purpose", strs(domain.ReviewPurposes())},
		{"notes_count", []string{"0", "1", "2", "3", "4", "5"}},
		{"outcome", []string{domain.OutcomeApproved, domain.OutcomeRejected}},
		{"outcome_reason", []string{ReasonDocumentsVerified, ReasonSanctionsHit, ReasonRegistryInvalid, ReasonDocumentsMissing}},
	}
	for _, n := range sizes {
		seen := survey(Demo(testNow, n))
		for _, tc := range cases {
			t.Run(fmt.Sprintf("n=%d/%s", n, tc.dim), func(t *testing.T) {
				for _, v := range tc.want {
					if !seen[tc.dim][v] {
						t.Errorf("%s: value %q never occurs (seen %v)", tc.dim, v, seen[tc.dim])
					}
				}
			})
		}
	}
}

func TestDemoMostlySaudi(t *testing.T) {
	for _, n := range sizes {
		sa := 0
		for _, d := range Demo(testNow, n) {
			if d.Entity.CountryCode == "SA" {
				sa++
			}
		}
		if share := float64(sa) / float64(n); share < 0.75 || share > 0.93 {
			t.Errorf("n=%d: Saudi share %.2f, want about 0.85", n, share)
		}
	}
}
