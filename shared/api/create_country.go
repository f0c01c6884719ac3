package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/country"
)

// resolveCountry reads country_code (preferred) and country_id; when both
// are sent they must name the same country. It returns an error message for
// errors.country, or "".
func (c CreateEntity) resolveCountry(f *createFields) (country.Country, string) {
	code, codeOK := jsonString(f.CountryCode)
	code = strings.TrimSpace(code)
	idSent := len(f.CountryID) > 0 && string(f.CountryID) != "null"
	if !codeOK {
		return country.Country{}, "country_code must be a string"
	}
	if code == "" && !idSent {
		return country.Country{}, `Country is required: send country_code, an ISO 3166-1 alpha-2 code such as "SA"`
	}
	var byCode, byID country.Country
	if code != "" {
		var ok bool
		if byCode, ok = c.Countries.ByAlpha2(code); !ok {
			return country.Country{}, fmt.Sprintf("Country %q is not a country the service knows", code)
		}
	}
	if idSent {
		var id int
		if err := json.Unmarshal(f.CountryID, &id); err != nil {
			return country.Country{}, "country_id must be an integer"
		}
		var ok bool
		if byID, ok = c.Countries.ByNumeric(id); !ok {
			return country.Country{}, fmt.Sprintf("Country %d is not a country the service knows", id)
		}
	}
	switch {
	case code != "" && idSent && byCode.Numeric != byID.Numeric:
		return country.Country{}, fmt.Sprintf("country_code %q and country_id %d name different countries", code, byID.Numeric)
	case code != "":
		return byCode, ""
	default:
		return byID, ""
	}
}
