package domain

import (
	"regexp"
	"strings"
)

// MaxRegistrationNumber bounds a registration number, in bytes, wherever
// one is accepted (create, the list filter): longer than any country's
// numbers, far below DynamoDB's key limits.
const MaxRegistrationNumber = 64

// NormalizeRegistration is the one form a registration number is stored,
// filtered and guarded in: surrounding white space trimmed, letters in
// upper case (registers do not tell "cn-0012" from "CN-0012"). Country
// rules are matched against this form.
func NormalizeRegistration(s string) string {
	return strings.ToUpper(strings.TrimSpace(s))
}

// RegistrationTextProblem says why s cannot be a registration number at all
// (before any country's rule): invalid UTF-8, a control character, or over
// MaxRegistrationNumber bytes; "" when it can.
func RegistrationTextProblem(s string) string {
	return TextProblem(s, MaxRegistrationNumber)
}

// MsgRegistrationTaken is the refusal of a registration number the account
// already has in the country (or that a concurrent create holds).
const MsgRegistrationTaken = "has already been taken"

// RegistrationTaken reports whether err is that refusal.
func RegistrationTaken(err error) bool {
	for _, m := range ErrorFields(err)["registration_number"] {
		if m == MsgRegistrationTaken {
			return true
		}
	}
	return false
}

// RegistrationProblem checks a normalised registration number against the
// country's rule (the generic one when the country has none), returning the
// rule's message when it does not match, or "".
func (c CountryConfig) RegistrationProblem(number string) string {
	pattern, msg := c.RegistrationPattern, c.RegistrationMessage
	if pattern == "" {
		pattern, msg = GenericRegistrationPattern, GenericRegistrationMessage
	}
	re, err := regexp.Compile(pattern)
	if err != nil || !re.MatchString(number) {
		return msg
	}
	return ""
}
