package webpage

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"regexp"
)

// csrfToken is the synchronizer token of a session's forms and script
// requests: derived from the session's token, so it needs no storage,
// differs per session and ends with it, and reveals nothing of the token.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF compares a request's token with the session's in constant time.
func validCSRF(sessionToken, got string) bool {
	return got != "" && hmac.Equal([]byte(csrfToken(sessionToken)), []byte(got))
}

// CSRF is the call's CSRF token, for a script that sends it in a header.
func (c *Call) CSRF() string { return csrfToken(c.Token) }

// actionIDPattern is what NewActionID makes: it names a decision's
// execution too, so it keeps to the characters Step Functions takes.
var actionIDPattern = regexp.MustCompile(`^web-[A-Z2-7]{26}$`)

// NewActionID names one form as rendered: submitting it twice is one
// change, since the services (and the workflow's execution names) apply an
// action id once.
func NewActionID() string { return "web-" + rand.Text() }

// ValidActionID reports whether s is an action id NewActionID made.
func ValidActionID(s string) bool { return actionIDPattern.MatchString(s) }
