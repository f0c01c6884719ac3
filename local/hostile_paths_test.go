package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// pct percent-encodes every byte of s, so that it reaches the server as
// those bytes once decoded.
func pct(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// controlBytes are 0x00–0x1F and 0x7F; invalidUTF8 the byte strings no
// UTF-8 decoder accepts.
func controlBytes() []byte {
	out := []byte{0x7f}
	for b := 0; b < 0x20; b++ {
		out = append(out, byte(b))
	}
	return out
}

var invalidUTF8 = map[string]string{
	"0xFF": "\xff", "lone continuation": "\x80", "overlong slash": "\xc0\xaf", "surrogate": "\xed\xa0\x80", "truncated": "\xe2\x82",
}

// pathIDCases: path ids that cannot be ids are the answer to an unknown id.
func (f *hostileFixture) pathIDCases() []hostileCase {
	var out []hostileCase
	entityID, reviewID := strconv.FormatInt(f.entity.Entity.ID, 10), strconv.FormatInt(f.entity.Reviews[0].ID, 10)
	for _, r := range []struct{ prefix, id string }{{"/api/v1/entities/", entityID}, {"/api/v1/entity_reviews/", reviewID}} {
		for _, b := range controlBytes() {
			out = append(out,
				hostileCase{name: fmt.Sprintf("GET %s<id>+0x%02X", r.prefix, b), method: "GET", path: r.prefix + r.id + pct(string(b)), status: 404, code: domain.ECodeNotFound},
				hostileCase{name: fmt.Sprintf("GET %s0x%02X", r.prefix, b), method: "GET", path: r.prefix + pct(string(b)), status: 404, code: domain.ECodeNotFound})
		}
		for name, s := range invalidUTF8 {
			out = append(out, hostileCase{name: "GET " + r.prefix + "<id>+" + name, method: "GET", path: r.prefix + r.id + pct(s), status: 404, code: domain.ECodeNotFound})
		}
		for _, id := range []string{"0", "0" + r.id, "-" + r.id, "+" + r.id, "1e3", "0x1", "9007199254740993", "9223372036854775808",
			"99999999999999999999", strings.Repeat("9", 1024), r.id + ".md.md", ".md", r.id + ".json", "%25", "%23x", "%3Fx", "%20" + r.id, r.id + "%20"} {
			out = append(out, hostileCase{name: "GET " + r.prefix + id, method: "GET", path: r.prefix + id, status: 404, code: domain.ECodeNotFound})
		}
	}
	for _, b := range controlBytes() {
		out = append(out, hostileCase{name: fmt.Sprintf("POST /webhooks/opensanctions+0x%02X", b), method: "POST", path: "/webhooks/opensanctions" + pct(string(b)),
			body: []byte(`{}`), status: 404, code: domain.ECodeNotFound, noKey: true})
	}
	for name, s := range invalidUTF8 {
		out = append(out, hostileCase{name: "POST /webhooks/<provider>+" + name, method: "POST", path: "/webhooks/opensanctions" + pct(s),
			body: []byte(`{}`), status: 404, code: domain.ECodeNotFound, noKey: true})
	}
	return out
}

// filterCases: each filter from 1 byte to 64 KB, with every control byte,
// with invalid UTF-8, with values of other types and given twice; paging
// with nonsense of every kind, which falls back to the defaults.
func (f *hostileFixture) filterCases() []hostileCase {
	var out []hostileCase
	list := func(name, query string, status int, field string) hostileCase {
		return hostileCase{name: "GET /entities?" + name, method: "GET", path: "/api/v1/entities", query: query, status: status, field: field}
	}
	for _, n := range []int{1, 10, 63, 64, 65, 100, 1023, 1024, 1025, 4096, 64 << 10} {
		status, field := 200, ""
		if n > domain.MaxRegistrationNumber {
			status, field = 422, "registration_number"
		}
		out = append(out, list(fmt.Sprintf("registration_number of %d bytes", n), "registration_number="+strings.Repeat("7", n), status, field))
	}
	for _, n := range []int{1, 2, 3, 16, 17, 1024, 64 << 10} {
		status, field, v := 422, "country_code", strings.Repeat("S", n)
		if n == 2 {
			status, field, v = 200, "", "sa"
		}
		out = append(out, list(fmt.Sprintf("country_code of %d bytes", n), "country_code="+v, status, field))
	}
	for _, tt := range []struct {
		v      string
		status int
	}{
		{"2", 422}, {"2026-01-01", 200}, {"2026-01-01T00:00:00Z", 200},
		{strings.Repeat("%20", 1000) + "2026-01-01T00:00:00Z", 200}, // white space around it is trimmed first
		{strings.Repeat("2", 64), 422}, {strings.Repeat("2", 65), 422}, {strings.Repeat("2", 1024), 422}, {strings.Repeat("2", 64<<10), 422},
	} {
		field := ""
		if tt.status == 422 {
			field = "updated_since"
		}
		out = append(out, list(fmt.Sprintf("updated_since of %d bytes", len(tt.v)), "updated_since="+tt.v, tt.status, field))
	}
	for _, b := range controlBytes() {
		out = append(out,
			list(fmt.Sprintf("registration_number with 0x%02X", b), "registration_number=700"+pct(string(b))+"1234560", 422, "registration_number"),
			list(fmt.Sprintf("country_code with 0x%02X", b), "country_code=S"+pct(string(b))+"A", 422, "country_code"),
			list(fmt.Sprintf("updated_since with 0x%02X", b), "updated_since=2026-01"+pct(string(b))+"-01", 422, "updated_since"))
	}
	for name, s := range invalidUTF8 {
		out = append(out,
			list("registration_number of "+name, "registration_number=7"+pct(s), 422, "registration_number"),
			list("country_code of "+name, "country_code=S"+pct(s), 422, "country_code"),
			list("updated_since of "+name, "updated_since=2026-01-01"+pct(s), 422, "updated_since"))
	}
	for _, tt := range []struct {
		query  string
		status int
		field  string
	}{
		{"registration_number=7001234560&registration_number=7001234561", 422, "registration_number"},
		{"country_code=SA&country_code=AE", 422, "country_code"},
		{"updated_since=2026-01-01&updated_since=2026-02-01", 422, "updated_since"},
		{"registration_number=%20%20%20", 422, "registration_number"},
		{"registration_number[]=7001234560", 200, ""}, // not a parameter of ours: ignored
		{"registration_number=%5B1%2C2%5D", 200, ""},  // "[1,2]" is a (non-matching) number
		{"registration_number=%7B%7D", 200, ""},
		{"registration_number=null", 200, ""},
		{"country_code=1", 422, "country_code"},
		{"country_code=true", 422, "country_code"},
		{"country_code=%5B%5D", 422, "country_code"},
		{"country_code=null", 422, "country_code"},
		{"updated_since=1", 422, "updated_since"},
		{"updated_since=1800000000", 422, "updated_since"},
		{"updated_since=true", 422, "updated_since"},
		{"updated_since=9999-12-31T23:00:00-02:00", 422, "updated_since"},
		{"updated_since=2026-01-31T09:30:00", 422, "updated_since"},
	} {
		out = append(out, list(tt.query, tt.query, tt.status, tt.field))
	}
	for _, v := range []string{"abc", "-1", "0", "1.5", "1e9", "99999999999999999999", "%5B1%5D", "%7B%7D", "true", "null", "%00", "%FF", "%0A", strings.Repeat("9", 64<<10)} {
		c := list("page and per_page "+v[:min(len(v), 24)], "page="+v+"&per_page="+v, 200, "")
		c.code = "paging defaults"
		out = append(out, c)
	}
	return out
}

// methodCases: every method on every path: the route's answer, 405 with
// Allow on a known path, 404 on an unknown one.
func (f *hostileFixture) methodCases() []hostileCase {
	entity := "/api/v1/entities/" + strconv.FormatInt(f.entity.Entity.ID, 10)
	review := "/api/v1/entity_reviews/" + strconv.FormatInt(f.entity.Reviews[0].ID, 10)
	paths := []struct {
		path, method string // the route's method, "" for no route
		status       int    // its answer to that method (no body, no content type)
		contentType  string
	}{
		{"/api/v1/entities", "GET", 200, ""},
		{"/api/v1/entities", "POST", 415, ""},
		{entity, "GET", 200, ""},
		{entity + ".md", "GET", 200, "text/markdown"},
		{review, "GET", 200, ""},
		{review + ".md", "GET", 200, "text/markdown"},
		{"/webhooks/opensanctions", "POST", 401, ""},
		{"/webhooks/unknown", "POST", 404, ""},
		{"/", "", 0, ""}, {"/api", "", 0, ""}, {"/api/v1", "", 0, ""}, {"/api/v1/entity_reviews", "", 0, ""},
		{"/api/v1/entities/1/checks", "", 0, ""}, {"/nowhere", "", 0, ""},
	}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "FOO"}
	routeMethods := map[string][]string{}
	for _, p := range paths {
		if p.method != "" {
			routeMethods[p.path] = append(routeMethods[p.path], p.method)
		}
	}
	var out []hostileCase
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p.path] {
			continue
		}
		seen[p.path] = true
		for _, m := range methods {
			c := hostileCase{name: m + " " + p.path, method: m, path: p.path, noKey: strings.HasPrefix(p.path, "/webhooks/")}
			switch {
			case len(routeMethods[p.path]) == 0:
				c.status, c.code, c.skipLambda = 404, domain.ECodeNotFound, true
			case contains(routeMethods[p.path], m):
				for _, q := range paths {
					if q.path == p.path && q.method == m {
						c.status, c.contentType = q.status, q.contentType
					}
				}
			default:
				c.status, c.code = 405, domain.ECodeMethodNotAllowed
			}
			out = append(out, c)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
