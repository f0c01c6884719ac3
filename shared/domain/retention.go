package domain

import "time"

// ActionEndRelationship records the end of the business relationship with
// an entity: from then its records are kept as long as its country's rule
// says, and no longer. It changes no status.
const ActionEndRelationship Action = "end_relationship"

// RetentionRule is how long a country's law keeps an entity's records
// after the relationship ends.
type RetentionRule struct {
	// Name is the rule's id ("sa", "eu", "default").
	Name string
	// Years after the end of the relationship; MaxYears is what an
	// account's setting may extend it to (Years when it cannot).
	Years, MaxYears int
	// Law names the source.
	Law string
}

// euMembers are the EU's member states (ISO 3166-1 alpha-2).
var euMembers = map[string]bool{
	"AT": true, "BE": true, "BG": true, "HR": true, "CY": true, "CZ": true, "DK": true, "EE": true, "FI": true,
	"FR": true, "DE": true, "GR": true, "HU": true, "IE": true, "IT": true, "LV": true, "LT": true, "LU": true,
	"MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SK": true, "SI": true, "ES": true, "SE": true,
}

// RetentionRuleFor is the rule of a country: Saudi Arabia's ten years, the
// EU's five (extendable to ten), and ten years elsewhere.
func RetentionRuleFor(countryCode string) RetentionRule {
	switch {
	case countryCode == "SA":
		return RetentionRule{Name: "sa", Years: 10, MaxYears: 10, Law: "Saudi AML Law and SAMA's AML/CTF rules: at least 10 years after the relationship ends"}
	case euMembers[countryCode]:
		return RetentionRule{Name: "eu", Years: 5, MaxYears: 10, Law: "EU AMLR (2024/1624) Art. 77: 5 years after the relationship ends, then deleted; extendable to 10"}
	}
	return RetentionRule{Name: "default", Years: 10, MaxYears: 10, Law: "the service's default: 10 years after the relationship ends (FATF R.11 asks at least 5)"}
}

// RetentionYears is how long an account keeps an entity of the country
// after the relationship: the rule's years, or the account's extension
// where the rule allows one (AccountSettings.ExtendedRetentionYears).
func RetentionYears(countryCode string, s AccountSettings) int {
	r := RetentionRuleFor(countryCode)
	if n := s.ExtendedRetentionYears; n > r.Years && n <= r.MaxYears {
		return n
	}
	return r.Years
}

// RetainUntil is the end of an entity's retention: years after the
// relationship ended, to the day.
func RetainUntil(ended time.Time, years int) time.Time {
	return ended.UTC().AddDate(years, 0, 0)
}
