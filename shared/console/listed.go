package console

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// compareRow is one line of a match set beside the entity: a field, the
// entity's values as the service and the register hold them, and the
// listed party's as the screening provider sent them.
type compareRow struct {
	Field          string
	Entity, Listed []string
	// Agrees: a value on one side is a value on the other (names, numbers
	// and countries compared without case, spacing or punctuation).
	Agrees bool
}

// maxValues bounds the values shown of one field: a listed party may have
// hundreds of aliases; the rest are counted, and all are in the answer.
const maxValues = 12

// The listed party's properties (FollowTheMoney's names) shown on a row
// of their own; any other is shown under "Other details".
var (
	nameProps    = []string{"name", "alias", "previousName", "weakAlias"}
	countryProps = []string{"jurisdiction", "country", "mainCountry"}
	dateProps    = []string{"incorporationDate", "dissolutionDate", "birthDate", "deathDate", "createdAt", "modifiedAt"}
	idProps      = []string{"idNumber", "taxNumber", "vatCode", "leiCode", "innCode", "ogrnCode", "okpoCode", "dunsCode",
		"swiftBic", "bikCode", "uniqueEntityId", "npiCode", "cikCode", "kppCode", "permId", "imoNumber", "wikidataId"}
	programProps = []string{"program", "programId", "topics"}
)

// comparison sets a listed party beside the entity, field by field.
// register is the result of the entity's latest registry lookup (nil
// when none completed): the register's name, numbers and dates.
func comparison(e domain.Entity, register map[string]any, p checks.ListedParty) []compareRow {
	str := func(k string) string { s, _ := register[k].(string); return s }
	names := []string{e.LegalName}
	for _, n := range e.Names {
		if !slices.ContainsFunc(names, func(have string) bool { return fold(have) == fold(n.Name) }) {
			names = append(names, n.Name)
		}
	}
	if n := str("legal_name"); n != "" && !slices.ContainsFunc(names, func(have string) bool { return fold(have) == fold(n) }) {
		names = append(names, n+" (the register)")
	}
	var ids, dates []string
	for _, k := range []struct{ key, name string }{{"cr_number", "CR number"}, {"unified_number", "unified number"}} {
		if v := str(k.key); v != "" {
			ids = append(ids, k.name+" "+v)
		}
	}
	if v := str("issue_date"); v != "" {
		dates = append(dates, "registered "+v)
	}
	if v := str("expiry_date_hijri"); v != "" {
		dates = append(dates, "register expiry "+v+" (Hijri)")
	}
	var places []string
	if v := str("city"); v != "" {
		places = append(places, v+" (the register's head office)")
	}
	var details []string
	if v := str("legal_form"); v != "" {
		details = append(details, "legal form: "+v)
	}
	acts, _ := register["activities"].([]any)
	for _, a := range acts {
		if m, ok := a.(map[string]any); ok {
			details = append(details, fmt.Sprintf("activity %v: %v", m["id"], m["name"]))
		}
	}
	listedNames := values(p, nameProps...)
	if p.Caption != "" && !slices.Contains(listedNames, p.Caption) {
		listedNames = append([]string{p.Caption}, listedNames...)
	}
	listedDates := named(p, dateProps...)
	if p.FirstSeen != "" {
		listedDates = append(listedDates, "listed since "+p.FirstSeen)
	}
	if p.LastSeen != "" {
		listedDates = append(listedDates, "last seen "+p.LastSeen)
	}
	regs := values(p, "registrationNumber")
	rows := []compareRow{
		{Field: "Name", Entity: names, Listed: listedNames, Agrees: overlap(names, listedNames, fold)},
		{Field: "Registration number", Entity: []string{e.RegistrationNumber}, Listed: regs,
			Agrees: overlap([]string{e.RegistrationNumber}, append(slices.Clone(regs), values(p, idProps...)...), digitsAndLetters)},
		{Field: "Other identifiers", Entity: ids, Listed: named(p, idProps...)},
		{Field: "Country", Entity: []string{e.CountryCode}, Listed: upper(values(p, countryProps...)),
			Agrees: overlap([]string{e.CountryCode}, values(p, countryProps...), strings.ToUpper)},
		{Field: "Dates", Entity: dates, Listed: listedDates},
		{Field: "Addresses", Entity: places, Listed: values(p, "address")},
		{Field: "Programme and lists", Listed: append(named(p, programProps...), prefixed("list ", p.Datasets)...)},
		{Field: "Other details", Entity: details, Listed: named(p, others(p)...)},
	}
	for i := range rows {
		rows[i].Entity, rows[i].Listed = capped(rows[i].Entity), capped(rows[i].Listed)
	}
	return rows
}

// values are the listed party's values of the properties, in order, once each.
func values(p checks.ListedParty, props ...string) []string {
	var out []string
	for _, k := range props {
		for _, v := range p.Properties[k] {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// named are the values with the property each came in: "taxNumber 123".
func named(p checks.ListedParty, props ...string) []string {
	var out []string
	for _, k := range props {
		out = append(out, prefixed(k+" ", p.Properties[k])...)
	}
	return out
}

func prefixed(prefix string, vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, prefix+v)
	}
	return out
}

// others are the properties no row of their own shows, sorted.
func others(p checks.ListedParty) []string {
	shown := slices.Concat(nameProps, countryProps, dateProps, idProps, programProps, []string{"registrationNumber", "address"})
	var out []string
	for k := range p.Properties {
		if !slices.Contains(shown, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func upper(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.ToUpper(v)
	}
	return out
}

func capped(vs []string) []string {
	if len(vs) <= maxValues {
		return vs
	}
	return append(slices.Clone(vs[:maxValues]), fmt.Sprintf("… and %d more (in the provider's answer)", len(vs)-maxValues))
}

// overlap reports whether some value of a is, once normalised, one of b.
func overlap(a, b []string, norm func(string) string) bool {
	for _, x := range a {
		if x == "" {
			continue
		}
		for _, y := range b {
			if norm(x) == norm(y) {
				return true
			}
		}
	}
	return false
}

// fold is a name without case, punctuation or repeated spaces.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return ' '
	}, s)), " ")
}

// digitsAndLetters is an identifier without separators: "7001-234 567" is
// "7001234567".
func digitsAndLetters(s string) string {
	return strings.ReplaceAll(fold(s), " ", "")
}
