package console_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// screeningAnswer is yente's answer for the seeded latest screening, its
// first result the entity's own number and country, with the details a
// listing carries.
func screeningAnswer(regNumber string) []byte {
	body, _ := json.Marshal(map[string]any{"responses": map[string]any{"q1": map[string]any{"status": 200, "results": []any{
		map[string]any{"id": "NK-first", "caption": "Decided Trading LLC", "schema": "Company", "score": 0.91,
			"datasets": []string{"us_ofac_sdn", "un_sc_sanctions"}, "first_seen": "2021-03-04T00:00:00",
			"properties": map[string]any{
				"name": []string{"Decided Trading LLC"}, "alias": []string{"شركة التداول المقررة", "DT Co"},
				"registrationNumber": []string{regNumber}, "jurisdiction": []string{"sa"}, "address": []string{"12 King Fahd Road, Riyadh"},
				"incorporationDate": []string{"2009-05-01"}, "program": []string{"SDGT"}, "topics": []string{"sanction"},
				"taxNumber": []string{"300-111-222"}, "notes": []string{"Listed for procurement on behalf of a designated party"},
				"addressEntity": []any{map[string]any{"id": "addr-1"}}, // nested: not a string, left out
			}},
		map[string]any{"id": "NK-second", "caption": "Decided Holdings", "schema": "Company", "score": 0.72, "datasets": []string{"eu_fsf"},
			"properties": map[string]any{"name": []string{"Decided Holdings"}, "country": []string{"ae"}}},
	}}}})
	return body
}

// withAnswer keeps body as the evidence of the latest screening; tamper
// rewrites the kept bytes after their hash was taken.
func withAnswer(body []byte, tamper bool) func(*domain.EntityDetail) {
	return func(d *domain.EntityDetail) {
		c := &d.Checks[len(d.Checks)-1]
		ev := domain.NewEvidence("opensanctions", "POST", "http://yente.test/match/default", 200, body, *c.CheckedAt)
		c.Result["evidence"] = ev.ResultMap()
		if tamper {
			ev.Body = []byte(strings.Replace(string(ev.Body), "King Fahd", "Queen Fahd", 1))
		}
		c.Evidence = ev
	}
}

func TestMatchesBesideTheEntity(t *testing.T) {
	w := newWorld(t)
	answerOf := func(tamper bool) func(*domain.EntityDetail) {
		return func(d *domain.EntityDetail) { withAnswer(screeningAnswer(d.Entity.RegistrationNumber), tamper)(d) }
	}
	for _, tc := range []struct {
		name   string
		prep   func(*domain.EntityDetail)
		want   []string // on the review page
		absent []string
		answer []string // on the latest screening's answer page; nil: not opened
	}{
		{name: "an answer kept and verified", prep: answerOf(false),
			want: []string{`<table class="stack compare">`, `<tr class="agrees">`, "Registration number <span class=\"badge bad\">same</span>",
				"12 King Fahd Road, Riyadh", "شركة التداول المقررة", "program SDGT", "topics sanction", "taxNumber 300-111-222",
				"incorporationDate 2009-05-01", "listed since 2021-03-04T00:00:00", "notes Listed for procurement", "list us_ofac_sdn",
				"Country <span class=\"badge bad\">same</span>", "AE", "not recorded", "Read the answer"},
			absent: []string{"addr-1", "Queen Fahd"},
			answer: []string{`data-verified="true"`, "responses.q1.results[0].properties.address[0]", "12 King Fahd Road, Riyadh",
				"The answer as received (JSON)", "Back to review #"}},
		{name: "an answer rewritten after its hash was taken", prep: answerOf(true),
			want:   []string{"does not hash to what the check recorded"},
			absent: []string{`<table class="stack compare">`, "Queen Fahd"},
			answer: []string{`data-verified="false"`, "Not verified", "Queen Fahd"}},
		{name: "no answer kept", prep: func(*domain.EntityDetail) {},
			want:   []string{"The provider’s answer is not kept"},
			absent: []string{`<table class="stack compare">`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := w.entity(t, domain.ReviewInProgress, dana, tc.prep)
			b := w.signedIn(t, dana)
			p := b.get("/console/reviews/" + itoa(r.ID))
			if p.status != http.StatusOK {
				t.Fatalf("review page: %d\n%s", p.status, p.body)
			}
			contains(t, "the review page", p.body, tc.want, tc.absent)
			if tc.answer == nil {
				return
			}
			// The checks are listed newest first: the first link is the
			// latest screening's.
			link := regexp.MustCompile(`/console/checks/\d+/answer\?review=\d+`).FindString(p.body)
			if link == "" {
				t.Fatal("no link to a provider's answer")
			}
			a := b.get(link)
			if a.status != http.StatusOK {
				t.Fatalf("answer page: %d\n%s", a.status, a.body)
			}
			contains(t, "the answer page", a.body, tc.answer, nil)
		})
	}
}

// contains checks a page shows each of want and none of absent.
func contains(t *testing.T, what, body string, want, absent []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("%s does not show %q", what, s)
		}
	}
	for _, s := range absent {
		if strings.Contains(body, s) {
			t.Errorf("%s shows %q", what, s)
		}
	}
}
