package domain

import "time"

// Saudi Arabia's registration number: the 10-digit unified national number,
// starting with 7, the sole identifier under the Commercial Register Law.
const (
	SaudiRegistrationPattern = `^7[0-9]{9}$`
	SaudiRegistrationMessage = "must be a 10-digit Saudi unified number starting with 7"
	// For countries without a rule of their own: letters, digits and dashes.
	GenericRegistrationPattern = `^[A-Za-z0-9][A-Za-z0-9-]{0,39}$`
	GenericRegistrationMessage = "must be 1 to 40 letters, digits or dashes"
)

// Default provider timeouts of intake checks.
const (
	DefaultRegistryTimeoutMS  = 5000
	DefaultScreeningTimeoutMS = 8000
)

// DefaultCountryConfig is the configuration a country gets when an operator
// enables it without details: Saudi Arabia checks the Wathq register and
// screens with OpenSanctions; elsewhere only screening runs.
func DefaultCountryConfig(accountID int64, code string, numeric int, now time.Time) CountryConfig {
	c := CountryConfig{
		AccountID:           accountID,
		CountryCode:         code,
		CountryID:           numeric,
		Active:              true,
		RegistrationPattern: GenericRegistrationPattern,
		RegistrationMessage: GenericRegistrationMessage,
		IntakeChecks: []IntakeCheck{
			{Type: CheckOrganizationScreening, ProviderKey: "opensanctions", TimeoutMS: DefaultScreeningTimeoutMS},
		},
		UpdatedAt: now,
	}
	if code == "SA" {
		c.RegistrationPattern, c.RegistrationMessage = SaudiRegistrationPattern, SaudiRegistrationMessage
		c.IntakeChecks = append([]IntakeCheck{{Type: CheckRegistryLookup, ProviderKey: "wathq", TimeoutMS: DefaultRegistryTimeoutMS}}, c.IntakeChecks...)
	}
	return c
}
