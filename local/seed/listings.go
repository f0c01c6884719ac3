package seed

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Listed names: a demo business (or party) whose screening finds something
// is given a name a party of the screening engine's dataset
// (local/screening/listed-parties.ftm.json) is found under, and its answer
// is the engine's own answer to that name, recorded (engine_answers.json):
// what a screening finds is decided by the name sent, as it is in make
// local and on a stage, never by a digit. TestDemoAnswersAreTheEngines
// (local) asks the running engine again and fails when the recording has
// gone stale; -record-demo-answers writes it afresh.

// Listing is a name the demo gives, with the outcome the engine's answer
// to it reads under the service's lines (hit at 0.9, review from the
// threshold's band).
type Listing struct {
	Name    string
	Country string // SA or AE: the business's country and the jurisdiction sent; "" for a person
	Person  bool
	Outcome string // hit or needs_review
	// Listed is the id of the party the engine finds (for the reader: the
	// recorded answer is what counts).
	Listed string
}

// Query is the screening query the demo (and intake, for a business of
// that name and number) sends for the listing.
func (l Listing) Query(reference, number string) checks.ScreeningQuery {
	q := checks.ScreeningQuery{Reference: reference, Schema: "Company",
		Names: []checks.ScreenedName{{Name: l.Name, Source: domain.NameRegister}}, Jurisdiction: strings.ToLower(l.Country), RegistrationNumber: number}
	if l.Person {
		q.Schema, q.Jurisdiction, q.RegistrationNumber = "Person", "", ""
		q.Names[0].Source = domain.NameDeclared
	}
	return q
}

// Listings are the demo's listed names, by kind; a business or party is
// given one by its place (listingFor), so the demo set names each.
func Listings() []Listing {
	return []Listing{
		// Saudi businesses the screening finds as hits: the Arabic-listed
		// party by its Arabic name, a party listed for its owner's
		// designation (sanction.control), one linked to a designated party.
		{"Red Sea Maritime Holdings", saCode, false, scrHit, "evs-co-red-sea-maritime"},
		{"Tabuk Sunbelt Energy", saCode, false, scrHit, "evs-co-tabuk-sunbelt"},
		{"Uhud Palm Date Packers", saCode, false, scrHit, "evs-co-uhud-dates"},
		{"طاقة حزام الشمس بتبوك", saCode, false, scrHit, "evs-co-tabuk-sunbelt"},
		{"شركة المجد للزراعة", saCode, false, scrHit, "evs-co-al-majd"},
		{"مصنع أحد لتعبئة التمور", saCode, false, scrHit, "evs-co-uhud-dates"},
		// Emirati businesses found as hits, one by the Arabic alias of a
		// Latin-listed party.
		{"Desert Falcon Trading LLC", aeCode, false, scrHit, "evs-co-desert-falcon"},
		{"Creekside Bullion DMCC", aeCode, false, scrHit, "evs-co-creekside-bullion"},
		{"Marjan Tide Shipping FZE", aeCode, false, scrHit, "evs-co-marjan-tide"},
		{"شركة مد المرجان للشحن", aeCode, false, scrHit, "evs-co-marjan-tide"},
		{"Saadiyat Fleet Chartering LLC", aeCode, false, scrHit, "evs-co-saadiyat-fleet"},
		// Names close to a listed one: the review band.
		{"شركة العاصي للخدمات النفطية", saCode, false, scrNeedsReview, "evs-co-orontes-oil"},
		{"Tabuk Sunbelt Energy Company", saCode, false, scrNeedsReview, "evs-co-tabuk-sunbelt"},
		{"Red Sea Maritime Holding Company", saCode, false, scrNeedsReview, "evs-co-red-sea-maritime"},
		{"شركة المجد الزراعية", saCode, false, scrNeedsReview, "evs-co-al-majd"},
		{"Tabuk Sun Belt Energy Est.", saCode, false, scrNeedsReview, "evs-co-tabuk-sunbelt"},
		{"Creekside Bullion Trading LLC", aeCode, false, scrNeedsReview, "evs-co-creekside-bullion"},
		{"Marjan Tide Shipping Co", aeCode, false, scrNeedsReview, "evs-co-marjan-tide"},
		{"Creekside Bullions", aeCode, false, scrNeedsReview, "evs-co-creekside-bullion"},
		// People behind a business, screened as parties.
		{"Turki Mansour Al-Dosari", "", true, scrHit, "evs-pe-al-dosari"},
		{"Saad Fahad Al-Mutairi", "", true, scrHit, "evs-pe-al-mutairi"},
		{"Turki Mansur Al Dossary", "", true, scrNeedsReview, "evs-pe-al-dosari"},
		{"Saad Fahd Al Mutairy", "", true, scrHit, "evs-pe-al-mutairi"},
	}
}

// listingTurns hands out the listings of each kind in turn, in the order
// Demo builds its entities (so entity i's name does not depend on how many
// follow it): the demo's first businesses of a kind bear different names.
type listingTurns map[string]int

// next is the kind's listing whose turn it is.
func (t listingTurns) next(country string, person bool, outcome string) (Listing, bool) {
	var of []Listing
	for _, l := range Listings() {
		if l.Person == person && l.Outcome == outcome && (person || l.Country == country) {
			of = append(of, l)
		}
	}
	if len(of) == 0 {
		return Listing{}, false
	}
	kind := fmt.Sprint(country, person, outcome)
	l := of[t[kind]%len(of)]
	t[kind]++
	return l, true
}

// DemoAnswers are the engine's recorded answers, by the name screened:
// the results yente returned, as it returned them.
type DemoAnswers map[string][]json.RawMessage

//go:embed engine_answers.json
var engineAnswersJSON []byte

// EngineAnswers are the recorded answers.
func EngineAnswers() (DemoAnswers, error) {
	var a DemoAnswers
	if err := json.Unmarshal(engineAnswersJSON, &a); err != nil {
		return nil, fmt.Errorf("seed: read engine_answers.json: %w", err)
	}
	return a, nil
}

// recordedResults are the engine's results for the name, as it sent them.
func recordedResults(name string) []any {
	a, err := EngineAnswers()
	if err != nil {
		panic(err)
	}
	var out []any
	for _, raw := range a[name] {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			panic(fmt.Sprintf("seed: the recorded answer to %q: %v", name, err))
		}
		out = append(out, v)
	}
	return out
}
