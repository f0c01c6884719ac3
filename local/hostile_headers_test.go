package main

import (
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// headerCases: odd bytes in the headers the functions read.
func (f *hostileFixture) headerCases() []hostileCase {
	entity := "/api/v1/entities/" + strconv.FormatInt(f.entity.Entity.ID, 10)
	get := func(name, path string, header map[string]string, status int) hostileCase {
		return hostileCase{name: "GET " + path + " " + name, method: "GET", path: path, header: header, status: status}
	}
	out := []hostileCase{
		get("Accept of invalid UTF-8", entity, map[string]string{"Accept": "\xff\xfe"}, 200),
		get("Accept with a bad quality", entity, map[string]string{"Accept": "text/markdown;q=abc, application/json;q=NaN"}, 200),
		get("Accept of 8 KB", entity, map[string]string{"Accept": strings.Repeat("application/json;q=0.1,", 400)}, 200),
		get("Accept with a tab", entity, map[string]string{"Accept": "application/json;\tq=1"}, 200),
		get("Content-Type on a GET", entity, map[string]string{"Content-Type": "\xff/\xfe"}, 200),
		get("Idempotency-Key on a GET", "/api/v1/entities", map[string]string{"Idempotency-Key": strings.Repeat("k", 1000)}, 200),
		get("X-Forwarded-Prefix of invalid UTF-8", "/api/v1/entities", map[string]string{"X-Forwarded-Prefix": "/\xff"}, 200),
	}
	md := get("Accept: text/markdown", entity, map[string]string{"Accept": "text/markdown"}, 200)
	md.contentType = "text/markdown"
	out = append(out, md)
	// The authorizer refuses odd keys (401 from the gateway); functions
	// never see them, so these go to the gateway only.
	for name, v := range map[string]string{
		"Bearer of invalid UTF-8": "Bearer \xff\xfe", "Bearer of 8 KB": "Bearer " + strings.Repeat("k", 8<<10), "Basic": "Basic dXNlcjpwYXNz",
		"Bearer alone": "Bearer", "a well-formed unknown key": "Bearer evs_" + strings.Repeat("A", 43), "the key twice": "Bearer " + f.key + " " + f.key,
		"the key with obs-text": "Bearer " + f.key + "\x80",
	} {
		c := get("with Authorization "+name, "/api/v1/entities", map[string]string{"Authorization": v}, 401)
		c.code, c.skipLambda = domain.ECodeUnauthorized, true
		out = append(out, c)
	}
	lower := get("with the scheme in lower case", "/api/v1/entities", map[string]string{"Authorization": "bearer " + f.key}, 200)
	lower.skipLambda = true
	noKey := hostileCase{name: "GET /api/v1/entities without a key", method: "GET", path: "/api/v1/entities", noKey: true, status: 401, code: domain.ECodeUnauthorized, skipLambda: true}
	return append(out, lower, noKey)
}
