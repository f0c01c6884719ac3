package checks

import (
	"encoding/json"
	"net/http"
	"strings"
)

// wathqError is Wathq's error body in both generations: {"code":
// "<status>.<n>.<n>", "message": "…"} (401.1.1 a bad key, 404.2.1 no such
// register, 429.1.1 rate limited).
type wathqError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func readWathqError(body []byte) (wathqError, bool) {
	var e wathqError
	if json.Unmarshal(body, &e) != nil || e.Code == "" {
		return wathqError{}, false
	}
	return e, true
}

// wathqNotFound: a 404 is the register saying it has no such record (a
// 404.x code, or a bare 404); a 404 body naming another status is a fault.
func wathqNotFound(status int, body []byte) bool {
	if status != http.StatusNotFound {
		return false
	}
	e, ok := readWathqError(body)
	return !ok || e.Code == "404" || strings.HasPrefix(e.Code, "404.")
}

// wathqErrorText is an error body's code and message, for a log line (the
// body holds no credential: the key travels in a header).
func wathqErrorText(body []byte) string {
	if e, ok := readWathqError(body); ok {
		return e.Code + " " + e.Message
	}
	return "no error body"
}
