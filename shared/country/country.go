// Package country is the ISO 3166-1 catalogue: alpha-2 codes, numeric ids and
// names, taken from github.com/biter777/countries rather than a hand-typed
// table. A country's id in the API (country_id) is its ISO 3166-1 numeric
// code, so it means the same in every environment.
package country

import (
	"strings"

	"github.com/biter777/countries"
)

// Country is one entry of the catalogue.
type Country struct {
	Alpha2  string // upper case, e.g. "SA"
	Numeric int    // e.g. 682
	Name    string // e.g. "Saudi Arabia"
}

// Catalogue looks countries up by code or id.
type Catalogue struct {
	byAlpha2  map[string]Country
	byNumeric map[int]Country
}

// ISO returns the ISO 3166-1 catalogue.
func ISO() *Catalogue {
	c := &Catalogue{byAlpha2: map[string]Country{}, byNumeric: map[int]Country{}}
	for _, code := range countries.All() {
		a2 := code.Alpha2()
		if !code.IsValid() || len(a2) != 2 || int(code) <= 0 {
			continue
		}
		e := Country{Alpha2: a2, Numeric: int(code), Name: code.String()}
		c.byAlpha2[a2] = e
		c.byNumeric[e.Numeric] = e
	}
	return c
}

// ByAlpha2 finds a country by its alpha-2 code, in any case.
func (c *Catalogue) ByAlpha2(code string) (Country, bool) {
	e, ok := c.byAlpha2[strings.ToUpper(strings.TrimSpace(code))]
	return e, ok
}

// ByNumeric finds a country by its ISO numeric code (our country_id).
func (c *Catalogue) ByNumeric(id int) (Country, bool) {
	e, ok := c.byNumeric[id]
	return e, ok
}

// Len is the number of countries in the catalogue.
func (c *Catalogue) Len() int { return len(c.byAlpha2) }

// ByName finds a country by an English name as countries.ByName reads it:
// names ("Saudi Arabia", "Egypt") and some adjectives ("Saudi", "Indian",
// "Syrian"; not "Egyptian" or "Emirati"). A name it does not read finds
// none: the caller keeps the name as given.
func (c *Catalogue) ByName(name string) (Country, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Country{}, false
	}
	if code := countries.ByName(name); code.IsValid() {
		return c.ByNumeric(int(code))
	}
	return Country{}, false
}
