package seed

import (
	"slices"
	"testing"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

func TestDemoScores(t *testing.T) {
	wantKeys := []string{checks.ScoreRegistry, checks.ScoreScreening, checks.ScoreDocuments, checks.ScoreOnlinePresence}
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			e := d.Entity
			anyDone := slices.ContainsFunc(d.Checks, func(c domain.Check) bool { return c.Status == domain.CheckCompleted })
			if (e.Score != nil) != anyDone {
				t.Errorf("%q: scored=%v but some check completed=%v", e.LegalName, e.Score != nil, anyDone)
			}
			if e.Score == nil {
				continue
			}
			s := e.Score
			if s.Value < 0 || s.Value > 100 {
				t.Errorf("%q: score %d out of range", e.LegalName, s.Value)
			}
			var keys []string
			sum, maxSum := 0, 0
			points := map[string]int{}
			for _, c := range s.Breakdown {
				keys = append(keys, c.Key)
				if c.Points < 0 || c.Points > c.Max || c.Label == "" {
					t.Errorf("%q: component %+v malformed", e.LegalName, c)
				}
				sum += c.Points
				maxSum += c.Max
				points[c.Key] = c.Points
			}
			if !slices.Equal(keys, wantKeys) || maxSum != 100 {
				t.Errorf("%q: components %v with max %d", e.LegalName, keys, maxSum)
			}
			if sum != s.Value {
				t.Errorf("%q: components sum to %d, score is %d", e.LegalName, sum, s.Value)
			}
			registryOK := e.RegistrationStatus == domain.RegistrationValid && slices.ContainsFunc(d.Checks, func(c domain.Check) bool {
				return c.Type == domain.CheckRegistryLookup && c.Status == domain.CheckCompleted
			})
			screened := slices.ContainsFunc(d.Checks, func(c domain.Check) bool {
				return c.Type == domain.CheckOrganizationScreening && c.Status == domain.CheckCompleted
			})
			if (points[checks.ScoreRegistry] == 40) != registryOK || (points[checks.ScoreScreening] == 30) != screened {
				t.Errorf("%q: breakdown %v disagrees with checks (registry ok %v, screened %v)", e.LegalName, points, registryOK, screened)
			}
			online := 0
			if e.WebsiteURL != nil {
				online += 5
			}
			if e.SocialURL != nil {
				online += 5
			}
			if points[checks.ScoreOnlinePresence] != online || points[checks.ScoreDocuments] != min(20, 5*e.DocumentsCount) {
				t.Errorf("%q: breakdown %v disagrees with documents %d and online presence", e.LegalName, points, e.DocumentsCount)
			}
		}
	}
}
