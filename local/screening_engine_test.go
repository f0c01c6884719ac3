package main

// The real screening engine the local stack runs (local/screening: yente
// 5.5.0 over a single-node OpenSearch, indexing the fictional listed
// parties of listed-parties.ftm.json), asked what the service will ask it.
// It pins what the tests and the demo rely on: the listed names are found,
// in Latin and Arabic script; a name that is not listed is not, whatever
// registration number comes with it; a person's birth date decides between
// namesakes; and none of the names the register simulator invents for
// unlisted companies comes near a hit.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
)

// engineHit is the score at and above which a result is a match: yente's
// default threshold, and the service's (YENTE_THRESHOLD, 0.7).
const engineHit = 0.7

type engineQuery struct {
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
}

type engineResult struct {
	ID       string   `json:"id"`
	Score    float64  `json:"score"`
	Match    bool     `json:"match"`
	Datasets []string `json:"datasets"`
}

// engineMatch posts the queries in one batch to /match/default with
// logic-v2, returning every result scoring at least threshold, by query key.
func engineMatch(t *testing.T, threshold float64, queries map[string]engineQuery) map[string][]engineResult {
	t.Helper()
	body, err := json.Marshal(map[string]any{"queries": queries})
	if err != nil {
		t.Fatal(err)
	}
	params := url.Values{"algorithm": {"logic-v2"}, "threshold": {fmt.Sprint(threshold)}, "limit": {"5"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, devstack.YenteURL()+"/match/default?"+params.Encode(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("yente at %s: %v", devstack.YenteURL(), err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /match/default: HTTP %d: %s", resp.StatusCode, raw)
	}
	var answer struct {
		Responses map[string]struct {
			Status  int            `json:"status"`
			Results []engineResult `json:"results"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatalf("POST /match/default: %v: %s", err, raw)
	}
	out := map[string][]engineResult{}
	for key := range queries {
		r, ok := answer.Responses[key]
		if !ok || r.Status != http.StatusOK {
			t.Fatalf("query %q: no answer (status %d) in %s", key, r.Status, raw)
		}
		out[key] = r.Results
	}
	return out
}

// engineStack skips under -short (no Java, no Python), else finds or starts
// the stack (devstack.Ensure: yente ready, canary found).
func engineStack(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the screening engine (OpenSearch and yente); skipped under -short")
	}
	devstacktest.Stack(t)
}

func TestScreeningEngineAnswers(t *testing.T) {
	engineStack(t)
	company := func(name string, more ...string) engineQuery {
		q := engineQuery{Schema: "Company", Properties: map[string][]string{"name": {name}}}
		for i := 0; i+1 < len(more); i += 2 {
			q.Properties[more[i]] = append(q.Properties[more[i]], more[i+1])
		}
		return q
	}
	person := func(name, birth string) engineQuery {
		q := engineQuery{Schema: "Person", Properties: map[string][]string{"name": {name}}}
		if birth != "" {
			q.Properties["birthDate"] = []string{birth}
		}
		return q
	}
	// want: the entity expected at the top at or above engineHit; "" for
	// no result at or above it.
	cases := []struct {
		name  string
		query engineQuery
		want  string
	}{
		{"the listed name, exactly", company("Desert Falcon Trading LLC", "jurisdiction", "ae"), "evs-co-desert-falcon"},
		{"the listed name without its legal form", company("Desert Falcon Trading"), "evs-co-desert-falcon"},
		{"the listed name misspelled", company("Desrt Falcon Tradng LLC"), "evs-co-desert-falcon"},
		{"the Arabic alias of a Latin-listed company", company("شركة الصقر الصحراوي للتجارة"), "evs-co-desert-falcon"},
		{"an Arabic-listed company by its Arabic name", company("شركة المجد للزراعة", "jurisdiction", "sa"), "evs-co-al-majd"},
		{"an Arabic-listed company by its Latin alias", company("Al Majd Agriculture Co", "jurisdiction", "sa"), "evs-co-al-majd"},
		{"a company owned by a designated party", company("Red Sea Maritime Holdings", "jurisdiction", "sa"), "evs-co-red-sea-maritime"},
		{"an unrelated name", company("Quantum Blue Software Ltd", "jurisdiction", "sa"), ""},
		{"a listed name with an unlisted registration number", company("Desert Falcon Trading LLC", "registrationNumber", "7000000077"), "evs-co-desert-falcon"},
		{"an unrelated name with the same unlisted registration number", company("Quantum Blue Software Ltd", "registrationNumber", "7000000077"), ""},
		{"an unrelated name with a listed registration number", company("Blue Lantern Bakery", "registrationNumber", "7009999991", "jurisdiction", "sa"), "evs-co-number-listed"},
		{"a PEP with the listed birth date", person("Mohammed Ali Hassan Al-Rashid", "1971-03-14"), "evs-pe-al-rashid"},
		{"a PEP's namesake born on another day", person("Mohammed Ali Hassan Al-Rashid", "1985-01-01"), ""},
		{"a PEP misspelled", person("Mohamad Ali Hasan Al Rashid", ""), "evs-pe-al-rashid"},
		{"a PEP by the Arabic alias", person("محمد علي حسن الراشد", ""), "evs-pe-al-rashid"},
		{"a sanctioned person with the listed birth date", person("Ahmed Saleh Al-Harbi", "1965-08-02"), "evs-pe-al-harbi"},
		{"a sanctioned person's namesake born in another year", person("Ahmed Saleh Al-Harbi", "1990-01-01"), ""},
		{"a relative or close associate", person("Fatima Nasser Al-Qahtani", "1980-05-20"), "evs-pe-rca"},
	}
	queries := map[string]engineQuery{}
	for i, c := range cases {
		queries[fmt.Sprintf("q%02d", i)] = c.query
	}
	got := engineMatch(t, 0.5, queries)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			results := got[fmt.Sprintf("q%02d", i)]
			var top *engineResult
			for j := range results {
				if results[j].Score >= engineHit && (top == nil || results[j].Score > top.Score) {
					top = &results[j]
				}
			}
			switch {
			case c.want == "" && top != nil:
				t.Errorf("%s scored %.3f, want nothing at or above %.2f (all: %+v)", top.ID, top.Score, engineHit, results)
			case c.want != "" && top == nil:
				t.Errorf("nothing at or above %.2f, want %s (all: %+v)", engineHit, c.want, results)
			case c.want != "" && top.ID != c.want:
				t.Errorf("top hit %s (%.3f), want %s (all: %+v)", top.ID, top.Score, c.want, results)
			}
		})
	}
	t.Run("a result names the list it is on", func(t *testing.T) {
		for _, r := range got["q00"] {
			if r.ID == "evs-co-desert-falcon" {
				if len(r.Datasets) != 1 || r.Datasets[0] != "us_ofac_sdn" {
					t.Errorf("datasets %v, want [us_ofac_sdn]", r.Datasets)
				}
				return
			}
		}
		t.Error("evs-co-desert-falcon not among the results")
	})
}

// engineSimulatedNames are the names local/sim's register simulator
// invents for unlisted companies (sim.InventedName: one of ten words, then
// one of five kinds), all fifty, found by asking it of enough numbers.
func engineSimulatedNames() []string {
	seen := map[string]bool{}
	var names []string
	for n := 7000000000; n < 7000010000; n++ {
		if name := sim.InventedName(strconv.Itoa(n)); !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// engineNearMiss is the score below which a simulated unlisted company
// must stay: far enough below the hit line that a demo entity is not a
// review case by accident.
const engineNearMiss = 0.60

// engineKnownNearMisses are the simulated names that score above
// engineNearMiss against a party whose name other code relies on, so that
// the dataset cannot change it; each says why. Remove one once its cause
// is mended (a new name in local/sim, or a renamed party).
var engineKnownNearMisses = map[string]string{}

// TestScreeningEngineSimulatedNamesAreClear: every name the register
// simulator invents, queried as the service queries a Saudi company (name,
// jurisdiction, a 70000000NN number), scores below engineNearMiss.
func TestScreeningEngineSimulatedNamesAreClear(t *testing.T) {
	engineStack(t)
	names := engineSimulatedNames()
	if len(names) < 50 {
		t.Fatalf("sim.InventedName gave %d names, want the 50 of its word lists", len(names))
	}
	queries := map[string]engineQuery{}
	for i, name := range names {
		queries[name] = engineQuery{Schema: "Company", Properties: map[string][]string{
			"name": {name}, "jurisdiction": {"sa"}, "registrationNumber": {fmt.Sprintf("70000000%02d", i+1)}}}
	}
	got := engineMatch(t, 0.5, queries)
	type seen struct {
		name, id string
		score    float64
	}
	var tops []seen
	for _, name := range names {
		for _, r := range got[name] {
			tops = append(tops, seen{name, r.ID, r.Score})
		}
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i].score > tops[j].score })
	for i, s := range tops {
		if i < 5 {
			t.Logf("%.3f %s -> %s", s.score, s.name, s.id)
		}
		if s.score < engineNearMiss {
			continue
		}
		if why, known := engineKnownNearMisses[s.name]; known {
			t.Logf("known: %s scores %.3f against %s: %s", s.name, s.score, s.id, why)
			continue
		}
		t.Errorf("%s scores %.3f against %s, want below %.2f: the demo would screen it as a listed party", s.name, s.score, s.id, engineNearMiss)
	}
	for name := range engineKnownNearMisses {
		clear := true
		for _, s := range tops {
			if s.name == name && s.score >= engineNearMiss {
				clear = false
			}
		}
		if clear {
			t.Errorf("%s no longer scores %.2f or more: drop it from engineKnownNearMisses", name, engineNearMiss)
		}
	}
}
