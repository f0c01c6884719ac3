package seed

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

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
		if _, ok := arabicNames[i]; ok {
			if d.Entity.CountryCode != saCode || !strings.ContainsFunc(name, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) {
				t.Errorf("entity %d: %q in %s is no Saudi name in Arabic script", i, name, d.Entity.CountryCode)
			}
			continue
		}
		if slices.ContainsFunc(Listings(), func(l Listing) bool { return l.Name == name }) {
			continue // a listed party's name, as it is listed
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
