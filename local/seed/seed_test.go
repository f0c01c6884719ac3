package seed

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// A now off UTC and with nanoseconds, to prove both are normalised away.
var testNow = time.Date(2025, 3, 14, 12, 26, 53, 589_793_238, time.FixedZone("AST", 3*3600))

var nowUTC = testNow.UTC().Truncate(time.Millisecond)

var (
	saNumber = regexp.MustCompile(domain.SaudiRegistrationPattern)
	aeNumber = regexp.MustCompile(`^CN-[0-9]{7}$`)
	generic  = regexp.MustCompile(domain.GenericRegistrationPattern)
)

// sizes are the demo set sizes every property is checked at.
var sizes = []int{120, 121, 400, 1000}

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
		{"entity_status", strs(domain.EntityStatuses)},
		{"registration_status", strs(domain.RegistrationStatuses)},
		{"sanctions_status", strs(domain.SanctionsStatuses)},
		{"risk", append(strs(domain.RiskLevels), "unassessed")},
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
		{"check_status", strs(domain.CheckStatuses)},
		{"check_type", strs(domain.CheckTypes)},
		{"check_status/registry_lookup", strs(domain.CheckStatuses)},
		{"check_status/organization_screening", strs(domain.CheckStatuses)},
		{"trigger", []string{domain.TriggerIntake, domain.TriggerOperatorRequested, domain.TriggerPeriodicReview}},
		{"subject", []string{"set", "nil"}},
		{"result_status/organization_screening", []string{"clear", "hit", "needs_review", "pending", "running", "failed"}},
		{"result_status/registry_lookup", []string{"active", "suspended", "expired", "pending", "running", "failed"}},
		{"review_status", strs(domain.ReviewStatuses)},
		{"review_purpose", strs(domain.ReviewPurposes)},
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

func TestDemoRegistrationNumbers(t *testing.T) {
	for _, n := range sizes {
		seen := map[string]bool{}
		for _, d := range Demo(testNow, n) {
			e := d.Entity
			switch e.CountryCode {
			case "SA":
				if e.CountryID != 682 || !saNumber.MatchString(e.RegistrationNumber) || len(e.RegistrationNumber) != 10 {
					t.Errorf("Saudi entity %q: country id %d, number %q", e.LegalName, e.CountryID, e.RegistrationNumber)
				}
			case "AE":
				if e.CountryID != 784 || !aeNumber.MatchString(e.RegistrationNumber) || !generic.MatchString(e.RegistrationNumber) {
					t.Errorf("UAE entity %q: country id %d, number %q", e.LegalName, e.CountryID, e.RegistrationNumber)
				}
			default:
				t.Errorf("unexpected country %q", e.CountryCode)
			}
			if seen[e.RegistrationNumber] {
				t.Errorf("n=%d: registration number %s repeats", n, e.RegistrationNumber)
			}
			seen[e.RegistrationNumber] = true
		}
	}
}

func TestRegistrationNumbersBijective(t *testing.T) {
	// Unique over far more positions than any demo set uses, and disjoint
	// from the positions Bulk uses.
	const m = 200_000
	seen := make(map[string]bool, 2*m)
	for i := range m {
		for _, s := range []string{saRegistration(i), saRegistration(bulkOffset + i)} {
			if seen[s] || !saNumber.MatchString(s) {
				t.Fatalf("position %d: %q repeats or is malformed", i, s)
			}
			seen[s] = true
		}
		if a := aeRegistration(i); seen[a] || !aeNumber.MatchString(a) {
			t.Fatalf("position %d: %q repeats or is malformed", i, a)
		} else {
			seen[a] = true
		}
	}
}

func TestDemoNames(t *testing.T) {
	suffixes := append(append([]string{}, saSuffixes...), aeSuffixes...)
	ds := Demo(testNow, 120)
	special := 0
	for i, d := range ds {
		name := d.Entity.LegalName
		if name == "" || strings.TrimSpace(name) != name || strings.Contains(name, "  ") {
			t.Errorf("entity %d: malformed name %q", i, name)
		}
		if _, ok := specialNames[i]; ok {
			special++
			if !strings.ContainsAny(name, markdownSpecials) {
				t.Errorf("entity %d: %q needs no Markdown escaping", i, name)
			}
			continue
		}
		if !slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(name, " "+s) }) {
			t.Errorf("entity %d: %q lacks a legal form", i, name)
		}
	}
	if special != len(specialNames) {
		t.Errorf("%d names needing escaping, want %d", special, len(specialNames))
	}
	if ds[5].Entity.LegalName != "Smith & Sons | Holdings *Ltd*" {
		t.Errorf("entity 5 is %q", ds[5].Entity.LegalName)
	}
}

func TestNewScore(t *testing.T) {
	cases := []struct {
		name                    string
		registry, screened      bool
		docs                    int
		website, social         bool
		want                    int
		wantRegistry, wantDocs  int
		wantScreening, wantOnln int
	}{
		{"nothing", false, false, 0, false, false, 0, 0, 0, 0, 0},
		{"everything", true, true, 6, true, true, 100, 40, 20, 30, 10},
		{"registry only", true, false, 0, false, false, 40, 40, 0, 0, 0},
		{"screened, two documents, website", false, true, 2, true, false, 45, 0, 10, 30, 5},
		{"documents cap at 20", false, false, 5, false, true, 25, 0, 20, 0, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := checks.Coverage(checks.CoverageInput{RegistryValid: tc.registry, Screened: tc.screened, Documents: tc.docs, Website: tc.website, Social: tc.social})
			if s.Value != tc.want {
				t.Errorf("value %d, want %d", s.Value, tc.want)
			}
			got := map[string]int{}
			for _, c := range s.Breakdown {
				got[c.Key] = c.Points
			}
			want := map[string]int{checks.ScoreRegistry: tc.wantRegistry, checks.ScoreScreening: tc.wantScreening, checks.ScoreDocuments: tc.wantDocs, checks.ScoreOnlinePresence: tc.wantOnln}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("breakdown %v, want %v", got, want)
			}
		})
	}
}

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

// latestScreening is the newest organisation screening check by creation,
// optionally only among entity-scoped ones.
func latestScreening(cs []domain.Check, entityScopedOnly bool) *domain.Check {
	var last *domain.Check
	for i := range cs {
		c := &cs[i]
		if c.Type != domain.CheckOrganizationScreening || entityScopedOnly && c.SubjectType != nil {
			continue
		}
		if last == nil || c.CreatedAt.After(last.CreatedAt) {
			last = c
		}
	}
	return last
}

func wantSanctions(c *domain.Check) domain.SanctionsStatus {
	if c == nil || c.Status != domain.CheckCompleted {
		return domain.SanctionsNotRun
	}
	return domain.SanctionsStatus(c.Result["status"].(string))
}

func checkSanctions(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	for _, scoped := range []bool{false, true} {
		if want := wantSanctions(latestScreening(d.Checks, scoped)); d.Entity.SanctionsStatus != want {
			t.Errorf("%q: sanctions %s, latest screening (entity-scoped only: %v) says %s", d.Entity.LegalName, d.Entity.SanctionsStatus, scoped, want)
		}
	}
	// The latest completed screening agrees as well.
	var done []domain.Check
	for _, c := range d.Checks {
		if c.Status == domain.CheckCompleted {
			done = append(done, c)
		}
	}
	if want := wantSanctions(latestScreening(done, false)); d.Entity.SanctionsStatus != want {
		t.Errorf("%q: sanctions %s, latest completed screening says %s", d.Entity.LegalName, d.Entity.SanctionsStatus, want)
	}
}

func TestDemoSanctionsAgreeWithScreening(t *testing.T) {
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			checkSanctions(t, d)
		}
	}
}

func TestDemoRegistrationAgreesWithRegistry(t *testing.T) {
	want := map[string]domain.RegistrationStatus{
		"active": domain.RegistrationValid, "suspended": domain.RegistrationInvalid,
		"cancelled": domain.RegistrationInvalid, "expired": domain.RegistrationExpired,
	}
	for _, d := range Demo(testNow, 400) {
		var last *domain.Check
		for i := range d.Checks {
			c := &d.Checks[i]
			if c.Type == domain.CheckRegistryLookup && c.Status == domain.CheckCompleted && (last == nil || c.CreatedAt.After(last.CreatedAt)) {
				last = c
			}
		}
		switch {
		case last != nil:
			if w := want[last.Result["status"].(string)]; d.Entity.RegistrationStatus != w {
				t.Errorf("%q: registration %s, registry says %s", d.Entity.LegalName, d.Entity.RegistrationStatus, w)
			}
		case d.Entity.CountryCode == "SA" && d.Entity.RegistrationStatus != domain.RegistrationUnknown:
			t.Errorf("%q: registration %s without a completed lookup", d.Entity.LegalName, d.Entity.RegistrationStatus)
		}
	}
}

// checkChecks asserts the shape of every check of d.
func checkChecks(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	if len(d.Checks) > 3 || e.ChecksCount != len(d.Checks) {
		t.Errorf("%q: %d checks, ChecksCount %d", name, len(d.Checks), e.ChecksCount)
	}
	triggers := []string{domain.TriggerIntake, domain.TriggerOperatorRequested, domain.TriggerPeriodicReview}
	for i, c := range d.Checks {
		if c.ID != 0 || c.EntityID != 0 || c.AccountID != 0 || c.ReviewID != nil {
			t.Errorf("%q: check %d carries ids", name, i)
		}
		if i > 0 && !c.CreatedAt.After(d.Checks[i-1].CreatedAt) {
			t.Errorf("%q: checks not in creation order", name)
		}
		if !slices.Contains(domain.CheckStatuses, c.Status) || !slices.Contains(triggers, c.TriggeringReason) || c.ProviderStatus == "" {
			t.Errorf("%q: check %+v", name, c)
		}
		switch c.Type {
		case domain.CheckRegistryLookup:
			if c.ProviderKey != "wathq" || e.CountryCode != "SA" {
				t.Errorf("%q: registry lookup by %q in %s", name, c.ProviderKey, e.CountryCode)
			}
		case domain.CheckOrganizationScreening:
			if c.ProviderKey != "opensanctions" {
				t.Errorf("%q: screening by %q", name, c.ProviderKey)
			}
		default:
			t.Errorf("%q: check type %q", name, c.Type)
		}
		set := []bool{c.SubjectType != nil, c.SubjectID != nil, c.SubjectDisplayName != nil}
		switch {
		case !slices.Contains(set, true):
		case !slices.Contains(set, false):
			if *c.SubjectType != "party" || *c.SubjectID <= 0 || *c.SubjectDisplayName == "" {
				t.Errorf("%q: party subject %q %d %q", name, *c.SubjectType, *c.SubjectID, *c.SubjectDisplayName)
			}
		default:
			t.Errorf("%q: subject fields partly set %v", name, set)
		}

		done := c.Status == domain.CheckCompleted
		st, _ := c.Result["status"].(string)
		if st == "" {
			t.Errorf("%q: result without status: %v", name, c.Result)
		}
		count, hasCount := c.Result["matches_count"]
		if hasCount != (done && c.Type == domain.CheckOrganizationScreening) {
			t.Errorf("%q: %s %s check, result %v: matches_count present=%v", name, c.Status, c.Type, c.Result, hasCount)
		}
		switch {
		case done && c.Type == domain.CheckOrganizationScreening:
			n, ok := count.(int)
			matched, _ := c.Result["matched"].(bool)
			if !ok || n < 0 || matched != (n > 0) || !slices.Contains([]string{"clear", "hit", "needs_review"}, st) || (st == "clear") != (n == 0) {
				t.Errorf("%q: screening result %v", name, c.Result)
			}
		case done && c.Type == domain.CheckRegistryLookup:
			if !slices.Contains([]string{"active", "suspended", "expired", "cancelled"}, st) || c.Result["legal_name"] != name || c.Result["cr_status"] == "" {
				t.Errorf("%q: registry result %v", name, c.Result)
			}
		default:
			if st != string(c.Status) {
				t.Errorf("%q: %s check with result status %q", name, c.Status, st)
			}
		}
		if (c.CheckedAt != nil) != (done || c.Status == domain.CheckFailed) {
			t.Errorf("%q: %s check with checked_at set=%v", name, c.Status, c.CheckedAt != nil)
		}
		if c.SubjectType != nil && !done {
			t.Errorf("%q: party check %s", name, c.Status)
		}
	}
}

func TestDemoChecks(t *testing.T) {
	for _, n := range sizes {
		party := 0
		for _, d := range Demo(testNow, n) {
			checkChecks(t, d)
			for _, c := range d.Checks {
				if c.SubjectType != nil {
					party++
				}
			}
		}
		if party == 0 || party > n/5 {
			t.Errorf("n=%d: %d party-scoped checks, want a few", n, party)
		}
	}
}

// checkReviews asserts the shape of every review of d and that they agree
// with the entity's status.
func checkReviews(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	rs := d.Reviews
	if len(rs) > 2 || e.ReviewsCount != len(rs) {
		t.Errorf("%q: %d reviews, ReviewsCount %d", name, len(rs), e.ReviewsCount)
	}
	for i, rv := range rs {
		wantPurpose := domain.ReviewInitial
		if i > 0 {
			wantPurpose = domain.ReviewPeriodic
		}
		if rv.Purpose != wantPurpose {
			t.Errorf("%q: review %d is %s", name, i, rv.Purpose)
		}
		if rv.ID != 0 || rv.EntityID != 0 || rv.AccountID != 0 {
			t.Errorf("%q: review %d carries ids", name, i)
		}
		wantChecks := 0
		if i == 0 {
			wantChecks = len(d.Checks)
		}
		if rv.ChecksCount != wantChecks || rv.NotesCount < 0 || rv.NotesCount > 5 {
			t.Errorf("%q: review %d: checks %d, notes %d", name, i, rv.ChecksCount, rv.NotesCount)
		}
		assigned := rv.AssignedUserID != nil && rv.AssignedUserName != nil && *rv.AssignedUserName != ""
		if (rv.AssignedUserID == nil) != (rv.AssignedUserName == nil) {
			t.Errorf("%q: review %d assignee half set", name, i)
		}
		decided := rv.Outcome != nil && rv.OutcomeReason != nil && rv.CompletedAt != nil
		switch rv.Status {
		case domain.ReviewOpen:
			if assigned || rv.StartedAt != nil || rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: open review %+v", name, rv)
			}
		case domain.ReviewInProgress, domain.ReviewEscalated:
			if !assigned || rv.StartedAt == nil || rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: %s review %+v", name, rv.Status, rv)
			}
		case domain.ReviewCompleted:
			if !assigned || rv.StartedAt == nil || !decided || rv.CompletedAt.Before(*rv.StartedAt) ||
				(*rv.Outcome != domain.OutcomeApproved && *rv.Outcome != domain.OutcomeRejected) || *rv.OutcomeReason == "" {
				t.Errorf("%q: completed review %+v", name, rv)
			}
		case domain.ReviewCancelled:
			if rv.Outcome != nil || rv.CompletedAt != nil {
				t.Errorf("%q: cancelled review %+v", name, rv)
			}
		default:
			t.Errorf("%q: review status %q", name, rv.Status)
		}
	}
	decidedAs := func(rv domain.Review, outcome string) bool {
		return rv.Status == domain.ReviewCompleted && rv.Outcome != nil && *rv.Outcome == outcome
	}
	switch e.Status {
	case domain.EntityDraft:
		if len(rs) != 0 {
			t.Errorf("%q: draft with %d reviews", name, len(rs))
		}
	case domain.EntityReadyForReview:
		if !slices.ContainsFunc(rs, func(rv domain.Review) bool { return rv.Status.Active() }) {
			t.Errorf("%q: ready for review without an active review", name)
		}
	case domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring:
		if len(rs) == 0 || !decidedAs(rs[0], domain.OutcomeApproved) {
			t.Errorf("%q: %s without an approved initial review", name, e.Status)
		}
	case domain.EntityRejected:
		if !slices.ContainsFunc(rs, func(rv domain.Review) bool { return decidedAs(rv, domain.OutcomeRejected) }) {
			t.Errorf("%q: rejected without a rejecting review", name)
		}
	default:
		t.Errorf("%q: entity status %q", name, e.Status)
	}
}

func TestDemoReviews(t *testing.T) {
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			checkReviews(t, d)
		}
	}
}

func TestDemoCounts(t *testing.T) {
	for _, d := range Demo(testNow, 1000) {
		e := d.Entity
		if e.RelationshipsCount < 0 || e.RelationshipsCount > 4 || e.DocumentsCount < 0 || e.DocumentsCount > 6 || e.AccountID != 0 || e.ID != 0 {
			t.Errorf("%q: relationships %d, documents %d, account %d, id %d", e.LegalName, e.RelationshipsCount, e.DocumentsCount, e.AccountID, e.ID)
		}
		for _, u := range []*string{e.WebsiteURL, e.SocialURL} {
			if u != nil && !strings.HasPrefix(*u, "https://") {
				t.Errorf("%q: url %q", e.LegalName, *u)
			}
		}
		if e.Risk != nil && !slices.Contains(domain.RiskLevels, e.Risk.Level) {
			t.Errorf("%q: risk %q", e.LegalName, e.Risk.Level)
		}
		if e.Status == domain.EntityDraft && e.Risk != nil {
			t.Errorf("%q: draft assessed", e.LegalName)
		}
	}
}

// checkTimes asserts that every timestamp of d is UTC, whole milliseconds and
// within the entity's life, which lies within [from, now].
func checkTimes(t *testing.T, d domain.EntityDetail, from, now time.Time) {
	t.Helper()
	e := d.Entity
	name := e.LegalName
	ok := func(what string, tm time.Time, lo, hi time.Time) {
		t.Helper()
		if tm.Location() != time.UTC || !tm.Equal(tm.Truncate(time.Millisecond)) || tm.Nanosecond()%int(time.Millisecond) != 0 {
			t.Errorf("%q: %s %v not UTC milliseconds", name, what, tm)
		}
		if tm.Before(lo) || tm.After(hi) {
			t.Errorf("%q: %s %v outside [%v, %v]", name, what, tm, lo, hi)
		}
	}
	ok("created_at", e.CreatedAt, from, now)
	ok("updated_at", e.UpdatedAt, e.CreatedAt, now)
	lo, hi := e.CreatedAt, e.UpdatedAt
	if e.Risk != nil {
		ok("risk assessed_at", e.Risk.AssessedAt, lo, hi)
	}
	for _, c := range d.Checks {
		ok("check created_at", c.CreatedAt, lo, hi)
		ok("check updated_at", c.UpdatedAt, c.CreatedAt, hi)
		if c.CheckedAt != nil {
			ok("check checked_at", *c.CheckedAt, c.CreatedAt, hi)
		}
	}
	for _, rv := range d.Reviews {
		ok("review created_at", rv.CreatedAt, lo, hi)
		ok("review updated_at", rv.UpdatedAt, rv.CreatedAt, hi)
		if rv.StartedAt != nil {
			ok("review started_at", *rv.StartedAt, rv.CreatedAt, rv.UpdatedAt)
		}
		if rv.CompletedAt != nil {
			ok("review completed_at", *rv.CompletedAt, rv.CreatedAt, rv.UpdatedAt)
		}
	}
	if len(d.Reviews) == 2 && d.Reviews[1].CreatedAt.Before(d.Reviews[0].UpdatedAt) {
		t.Errorf("%q: periodic review opened before the initial one closed", name)
	}
}

func TestDemoTimestamps(t *testing.T) {
	from := nowUTC.Add(-120 * 24 * time.Hour)
	weekAgo := nowUTC.Add(-7 * 24 * time.Hour)
	for _, n := range sizes {
		ds := Demo(testNow, n)
		recent := 0
		for i, d := range ds {
			checkTimes(t, d, from, nowUTC)
			if i > 0 && !d.Entity.CreatedAt.After(ds[i-1].Entity.CreatedAt) {
				t.Errorf("n=%d: entity %d not created after entity %d", n, i, i-1)
			}
			if !d.Entity.UpdatedAt.Before(weekAgo) {
				recent++
			}
		}
		if recent == 0 || recent == n || recent > n/2 {
			t.Errorf("n=%d: updated_since a week ago matches %d entities, want some but not all", n, recent)
		}
		if first, last := ds[0].Entity.CreatedAt, ds[n-1].Entity.CreatedAt; first.After(from.Add(24*time.Hour)) || last.Before(nowUTC.Add(-2*24*time.Hour)) {
			t.Errorf("n=%d: created from %v to %v, want spread over 120 days", n, first, last)
		}
	}
}

func TestDemoDeterministic(t *testing.T) {
	a, b := Demo(testNow, 300), Demo(testNow, 300)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls with the same arguments differ")
	}
	if !reflect.DeepEqual(Demo(testNow, 50), Demo(testNow.UTC(), 50)) {
		t.Error("the zone of now changes the data")
	}
	// Content (not timestamps) depends on the position only, so every n >= 120
	// contains the fully covering first 120.
	small := Demo(testNow, 120)
	for i, d := range small {
		x, y := d.Entity, a[i].Entity
		if x.LegalName != y.LegalName || x.RegistrationNumber != y.RegistrationNumber || x.Status != y.Status ||
			x.SanctionsStatus != y.SanctionsStatus || x.RegistrationStatus != y.RegistrationStatus ||
			len(d.Checks) != len(a[i].Checks) || len(d.Reviews) != len(a[i].Reviews) {
			t.Fatalf("entity %d differs between n=120 and n=300", i)
		}
	}
}

func TestDemoEdgeSizes(t *testing.T) {
	for _, n := range []int{-1, 0} {
		if got := Demo(testNow, n); got == nil || len(got) != 0 {
			t.Errorf("Demo(%d) = %v, want empty", n, got)
		}
		if got := Bulk(testNow, n); got == nil || len(got) != 0 {
			t.Errorf("Bulk(%d) = %v, want empty", n, got)
		}
	}
	for _, n := range []int{1, 2, 7} {
		ds := Demo(testNow, n)
		if len(ds) != n {
			t.Fatalf("Demo(%d) has %d entities", n, len(ds))
		}
		for _, d := range ds {
			checkTimes(t, d, nowUTC.Add(-120*24*time.Hour), nowUTC)
			checkChecks(t, d)
			checkReviews(t, d)
			checkSanctions(t, d)
		}
	}
}

func TestBulk(t *testing.T) {
	const n = 10_000
	start := time.Now()
	ds := Bulk(testNow, n)
	took := time.Since(start)
	if took > time.Second {
		t.Errorf("Bulk(%d) took %v", n, took)
	}
	t.Logf("Bulk(%d) took %v", n, took)
	if len(ds) != n {
		t.Fatalf("%d entities, want %d", len(ds), n)
	}
	demo := map[string]bool{}
	for _, d := range Demo(testNow, 1000) {
		demo[d.Entity.RegistrationNumber] = true
	}
	seen := make(map[string]bool, n)
	statuses := map[domain.EntityStatus]int{}
	from := nowUTC.Add(-120 * 24 * time.Hour)
	for i, d := range ds {
		e := d.Entity
		if e.CountryCode != "SA" || e.CountryID != 682 || !saNumber.MatchString(e.RegistrationNumber) {
			t.Fatalf("entity %d: %s %d %q", i, e.CountryCode, e.CountryID, e.RegistrationNumber)
		}
		if seen[e.RegistrationNumber] || demo[e.RegistrationNumber] {
			t.Fatalf("entity %d: registration number %s repeats", i, e.RegistrationNumber)
		}
		seen[e.RegistrationNumber] = true
		if len(d.Checks) != 1 || len(d.Reviews) != 1 {
			t.Fatalf("entity %d: %d checks, %d reviews", i, len(d.Checks), len(d.Reviews))
		}
		if i > 0 && !e.CreatedAt.After(ds[i-1].Entity.CreatedAt) {
			t.Fatalf("entity %d not created after entity %d", i, i-1)
		}
		statuses[e.Status]++
		if i%97 == 0 { // the full checks are slow for 10,000
			checkTimes(t, d, from, nowUTC)
			checkChecks(t, d)
			checkReviews(t, d)
		}
		checkSanctions(t, d)
	}
	if len(statuses) < 5 {
		t.Errorf("statuses %v, want variety", statuses)
	}
	if !reflect.DeepEqual(Bulk(testNow, 500), Bulk(testNow, 500)) {
		t.Error("Bulk is not deterministic")
	}
}

func BenchmarkBulk(b *testing.B) {
	for b.Loop() {
		Bulk(testNow, 10_000)
	}
}

func BenchmarkDemo(b *testing.B) {
	for b.Loop() {
		Demo(testNow, 1000)
	}
}
