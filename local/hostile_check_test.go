package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/api"
)

// hostileCase is one request and the answer it must get.
type hostileCase struct {
	name   string
	method string
	path   string // as sent: percent-encoded
	query  string // as sent: percent-encoded
	header map[string]string
	body   []byte
	// status is the gateway's answer; lambda the function's, when it
	// differs (the gateway answers some requests itself); skipLambda when
	// no function would get the request.
	status, lambda int
	skipLambda     bool
	// field is the field a 422 refuses; code the error code of another
	// refusal, when it matters; contentType the success's, when not JSON.
	field, code, contentType string
	// noKey sends no Authorization header.
	noKey bool
}

// checkAnswer holds an answer to its case: the status, never a 5xx, and
// the documented body: a success's JSON (or Markdown), the validation body
// with the refused field, or the error body whose code has that status.
func checkAnswer(t *testing.T, c hostileCase, want int, a answer) {
	t.Helper()
	if a.status >= 500 {
		t.Errorf("%s: %d %.300s", c.name, a.status, a.body)
		return
	}
	if a.status != want {
		t.Errorf("%s: status %d, want %d: %.300s", c.name, a.status, want, a.body)
		return
	}
	if c.method == "HEAD" {
		return // no body to judge
	}
	ct := a.header.Get("Content-Type")
	if c.contentType != "" {
		if !strings.HasPrefix(ct, c.contentType) || len(a.body) == 0 {
			t.Errorf("%s: Content-Type %q, %d bytes; want %s", c.name, ct, len(a.body), c.contentType)
		}
		return
	}
	if !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want JSON: %.200s", c.name, ct, a.body)
		return
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(a.body, &top); err != nil {
		t.Errorf("%s: body is not a JSON object (%v): %.200s", c.name, err, a.body)
		return
	}
	switch {
	case a.status < 300:
		if c.code == "paging defaults" {
			var meta struct {
				Meta struct {
					Page    int `json:"page"`
					PerPage int `json:"per_page"`
				} `json:"meta"`
			}
			if json.Unmarshal(a.body, &meta) != nil || meta.Meta.Page != 1 || meta.Meta.PerPage != api.DefaultPerPage {
				t.Errorf("%s: meta %s, want page 1 of %d", c.name, top["meta"], api.DefaultPerPage)
			}
		}
	case a.status == http.StatusUnprocessableEntity:
		var v struct {
			Errors map[string][]string `json:"errors"`
		}
		if len(top) != 1 || json.Unmarshal(a.body, &v) != nil || len(v.Errors) == 0 {
			t.Errorf("%s: %s, want {\"errors\": {...}}", c.name, a.body)
			return
		}
		for field, msgs := range v.Errors {
			if len(msgs) == 0 || slicesHasEmpty(msgs) {
				t.Errorf("%s: errors.%s = %q", c.name, field, msgs)
			}
		}
		if c.field != "" && len(v.Errors[c.field]) == 0 {
			t.Errorf("%s: refused %s, want %s", c.name, a.body, c.field)
		}
	default:
		var detail map[string]string
		if len(top) != 1 || json.Unmarshal(top["error"], &detail) != nil || len(detail) != 2 || detail["code"] == "" || detail["message"] == "" {
			t.Errorf("%s: %s, want {\"error\": {\"code\", \"message\"}}", c.name, a.body)
			return
		}
		if api.StatusOf(detail["code"]) != a.status {
			t.Errorf("%s: code %s answered with %d", c.name, detail["code"], a.status)
		}
		if c.code != "" && detail["code"] != c.code {
			t.Errorf("%s: code %s, want %s", c.name, detail["code"], c.code)
		}
		if a.status == http.StatusMethodNotAllowed && a.header.Get("Allow") == "" {
			t.Errorf("%s: 405 without Allow", c.name)
		}
	}
}

func slicesHasEmpty(s []string) bool {
	for _, v := range s {
		if v == "" {
			return true
		}
	}
	return false
}
