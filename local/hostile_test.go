package main

// Hostile requests, sent both through the local gateway (over HTTP, behind
// the server make local runs) and straight to each function's Lambda
// handler as the API Gateway proxy event it would get: control bytes and
// invalid UTF-8 in path ids, filters from 1 byte to 64 KB, wrong types for
// every parameter and create field, deep nesting, bodies at and just over
// 1 MiB, duplicate keys, odd header bytes, every method on every path.
// Every answer is the documented one — the expected status and the
// documented JSON shape (or the right success) — never a 5xx; the refused
// requests write nothing to any table and call no provider.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// hostileFixture is an account (Saudi Arabia and the UAE enabled) with a
// key of every permission and one entity with checks and reviews; the
// provider simulator, counting calls; the gateway behind its own server.
type hostileFixture struct {
	db       *dynamo.DB
	names    schema.Names
	st       *store.Store
	sim      *sim.Simulator
	gw       *gateway.Gateway
	url      string
	key      string
	account  int64
	entity   domain.EntityDetail
	secret   webhooks.Secret
	authzCtx map[string]any
}

func newHostileFixture(t *testing.T) *hostileFixture {
	t.Helper()
	f := &hostileFixture{db: devstack.DB()}
	f.names = devstacktest.Tables(t, f.db)
	f.st = store.New(f.db, f.names)
	e := &env{store: f.st, names: f.names, log: quietLogger()}
	f.account = mustAccount(t, e, "Hostile", "SA", "AE")
	perms := []string{domain.PermEntityView, domain.PermEntityCreate, domain.PermReviewView}
	f.key = mustKey(t, e, f.account, perms...)
	var err error
	if f.entity, err = f.st.CreateEntity(context.Background(), withAccount(richDetail("7000000010"), f.account)); err != nil {
		t.Fatal(err)
	}
	f.sim = &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey}
	simSrv := httptest.NewServer(f.sim)
	t.Cleanup(simSrv.Close)
	f.gw = newGateway(f.st, quietLogger(), simulatorProviders(simSrv.URL))
	srv := httptest.NewUnstartedServer(f.gw)
	srv.Config = f.gw.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	f.url = srv.URL
	if f.secret, err = webhooks.ParseSecret(localWebhookSecret()); err != nil {
		t.Fatal(err)
	}
	// What the authorizer answers for f.key, as the direct events carry it.
	f.authzCtx = auth.Principal{AccountID: f.account, KeyPrefix: f.key[:10], Permissions: perms}.AuthorizerContext()
	return f
}

// itemCounts counts the items of every table of the fixture.
func (f *hostileFixture) itemCounts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for id, name := range f.names {
		n, err := f.db.Table(name).Scan().Consistent(true).Count(context.Background())
		if err != nil {
			t.Fatalf("count %s: %v", name, err)
		}
		out[id] = n
	}
	return out
}

func (f *hostileFixture) providerCalls() int {
	return f.sim.Calls("wathq") + f.sim.Calls("opensanctions")
}

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

// createCases: bodies of wrong types for every field, deep nesting, 1 MiB
// and just over, invalid UTF-8, duplicate keys, malformed JSON, wrong
// content types, refused Idempotency-Keys. Each would be refused even if
// its last field were read first: none creates an entity.
func (f *hostileFixture) createCases() []hostileCase {
	var out []hostileCase
	post := func(name, body string, status int, field string) hostileCase {
		return hostileCase{name: "POST /entities " + name, method: "POST", path: "/api/v1/entities", header: map[string]string{"Content-Type": "application/json"},
			body: []byte(body), status: status, field: field}
	}
	for _, tt := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"string", `"entity"`, 422, "entity"},
		{"array", `[]`, 422, "entity"},
		{"number", `1`, 422, "entity"},
		{"boolean", `true`, 422, "entity"},
		{"null", `null`, 422, "entity"},
		{"entity string", `{"entity": "7001234560"}`, 422, "entity"},
		{"entity array", `{"entity": [{"registration_number": "7001234560", "country_code": "SA"}]}`, 422, "entity"},
		{"entity number", `{"entity": 1}`, 422, "entity"},
		{"entity null", `{"entity": null}`, 422, "entity"},
		{"entity empty", `{"entity": {}}`, 422, "registration_number"},
		{"number as number", `{"entity": {"registration_number": 7001234560, "country_code": "SA"}}`, 422, "registration_number"},
		{"number as array", `{"entity": {"registration_number": ["7001234560"], "country_code": "SA"}}`, 422, "registration_number"},
		{"number as object", `{"entity": {"registration_number": {"v": "7001234560"}, "country_code": "SA"}}`, 422, "registration_number"},
		{"number as boolean", `{"entity": {"registration_number": true, "country_code": "SA"}}`, 422, "registration_number"},
		{"number null", `{"entity": {"registration_number": null, "country_code": "SA"}}`, 422, "registration_number"},
		{"number of 65 bytes", `{"entity": {"registration_number": "` + strings.Repeat("7", 65) + `", "country_code": "SA"}}`, 422, "registration_number"},
		{"number with a control character", `{"entity": {"registration_number": "700\u00001234560", "country_code": "SA"}}`, 422, "registration_number"},
		{"number against the Saudi rule", `{"entity": {"registration_number": "8001234560", "country_code": "SA"}}`, 422, "registration_number"},
		{"country code as number", `{"entity": {"registration_number": "7001234560", "country_code": 682}}`, 422, "country"},
		{"country code as array", `{"entity": {"registration_number": "7001234560", "country_code": ["SA"]}}`, 422, "country"},
		{"country code as object", `{"entity": {"registration_number": "7001234560", "country_code": {}}}`, 422, "country"},
		{"country id as string", `{"entity": {"registration_number": "7001234560", "country_id": "682"}}`, 422, "country"},
		{"country id as fraction", `{"entity": {"registration_number": "7001234560", "country_id": 682.5}}`, 422, "country"},
		{"country id beyond float", `{"entity": {"registration_number": "7001234560", "country_id": 1e400}}`, 422, "country"},
		{"country id beyond int64", `{"entity": {"registration_number": "7001234560", "country_id": 99999999999999999999}}`, 422, "country"},
		{"country id as array", `{"entity": {"registration_number": "7001234560", "country_id": [682]}}`, 422, "country"},
		{"country id negative", `{"entity": {"registration_number": "7001234560", "country_id": -682}}`, 422, "country"},
		{"country not enabled", `{"entity": {"registration_number": "7001234560", "country_code": "FR"}}`, 422, "country"},
		{"countries that disagree", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "country_id": 784}}`, 422, "country"},
		{"legal name as number", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": 5}}`, 422, "legal_name"},
		{"legal name as object", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": {}}}`, 422, "legal_name"},
		{"legal name of 301 characters", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": "` + strings.Repeat("n", 301) + `"}}`, 422, "legal_name"},
		// Duplicate keys: a body that says two things is refused, whichever
		// comes last (the decoder alone would let the last one win).
		{"duplicate number", `{"entity": {"registration_number": "7001234560", "registration_number": "bad", "country_code": "SA"}}`, 400, ""},
		{"duplicate number, the valid one last", `{"entity": {"registration_number": "bad", "registration_number": "7001234560", "country_code": "SA"}}`, 400, ""},
		{"duplicate country", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "country_code": "ZZ"}}`, 400, ""},
		{"duplicate entity", `{"entity": {"registration_number": "7001234560", "country_code": "SA"}, "entity": {"registration_number": 5}}`, 400, ""},
		// Nesting: 10,000 levels is as deep as the decoder goes.
		{"nested 10,000 arrays inside entity", `{"entity": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, 400, ""},
		{"nested 10,000 objects beside a bad number", `{"entity": {"registration_number": "bad", "country_code": "SA", "x": ` +
			strings.Repeat(`{"a":`, 9990) + `1` + strings.Repeat("}", 9990) + `}}`, 422, "registration_number"},
		{"nested 10,000 arrays at the top", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), 422, "entity"},
		{"nested 10,001 arrays at the top", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), 400, ""},
		// Malformed.
		{"empty", ``, 400, ""},
		{"truncated", `{"entity": {"registration_number": "7001234560"`, 400, ""},
		{"two documents", `{"entity": {}} {"entity": {}}`, 400, ""},
		{"trailing garbage", `{"entity": {}}x`, 400, ""},
		{"byte order mark", "\xef\xbb\xbf{\"entity\": {}}", 400, ""},
		{"NaN", `{"entity": {"country_id": NaN}}`, 400, ""},
		{"comment", `// entity
{"entity": {}}`, 400, ""},
		{"single quotes", `{'entity': {}}`, 400, ""},
		// Invalid UTF-8: inside a string it reads as U+FFFD; outside, it is not JSON.
		{"invalid UTF-8 in the number", "{\"entity\": {\"registration_number\": \"\xff\xfe\", \"country_code\": \"SA\"}}", 422, "registration_number"},
		{"invalid UTF-8 in a key", "{\"ent\xffity\": {\"registration_number\": \"7001234560\", \"country_code\": \"SA\"}}", 422, "entity"},
		{"invalid UTF-8 alone", "\xff\xfe\xfd", 400, ""},
	} {
		out = append(out, post(tt.name, tt.body, tt.status, tt.field))
	}

	// 1 MiB exactly (padded with white space) is read and judged; one byte
	// more is too large.
	refused := `{"entity": {"registration_number": "bad", "country_code": "SA"}}`
	tooLarge := post("of 1 MiB and 1 byte", refused+strings.Repeat(" ", api.MaxCreateBody-len(refused)+1), 413, "")
	tooLarge.code = domain.ECodeTooLarge
	long := `{"entity": {"country_code": "SA", "registration_number": "`
	out = append(out,
		post("of exactly 1 MiB", refused+strings.Repeat(" ", api.MaxCreateBody-len(refused)), 422, "registration_number"),
		tooLarge,
		post("of exactly 1 MiB, one long number", long+strings.Repeat("7", api.MaxCreateBody-len(long)-3)+`"}}`, 422, "registration_number"))

	valid := `{"entity": {"registration_number": "7001234560", "country_code": "SA"}}`
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ";;;", "application/jsonx", "json"} {
		c := post("sent as "+strconv.Quote(ct), valid, 415, "")
		c.header = map[string]string{"Content-Type": ct}
		c.code = domain.ECodeUnsupportedMedia
		out = append(out, c)
	}
	// A refused key is refused before anything else, here before a body
	// that would create an entity.
	for name, key := range map[string]string{
		"of 256 bytes": strings.Repeat("k", 256), "of 64 KB": strings.Repeat("k", 64<<10), "of invalid UTF-8": "order-\xff", "of 128 two-byte characters": strings.Repeat("é", 128),
	} {
		c := post("with an Idempotency-Key "+name, valid, 422, "idempotency_key")
		c.header = map[string]string{"Content-Type": "application/json", "Idempotency-Key": key}
		out = append(out, c)
	}
	return out
}

// webhookCases: unsigned, and signed but hostile, screening webhooks. None
// names a check it may change.
func (f *hostileFixture) webhookCases(now time.Time) []hostileCase {
	var registry int64 // a registry lookup: no screening webhook may name it
	for _, c := range f.entity.Checks {
		if c.Type == domain.CheckRegistryLookup {
			registry = c.ID
		}
	}
	signed := func(name, body string, status int, field, code string) hostileCase {
		id := "msg_hostile_" + strconv.Itoa(len(name)) + "_" + strings.ReplaceAll(name, " ", "_")
		return hostileCase{name: "POST /webhooks/opensanctions " + name, method: "POST", path: "/webhooks/opensanctions", noKey: true, body: []byte(body),
			header: map[string]string{
				webhooks.HeaderID: id, webhooks.HeaderTimestamp: strconv.FormatInt(now.Unix(), 10),
				webhooks.HeaderSignature: webhooks.StandardSignature(f.secret, id, now.Unix(), []byte(body)),
			}, status: status, field: field, code: code}
	}
	out := []hostileCase{
		{name: "POST /webhooks/opensanctions unsigned", method: "POST", path: "/webhooks/opensanctions", noKey: true, body: []byte(`{"type": "screening.completed"}`), status: 401, code: domain.ECodeUnauthorized},
		{name: "POST /webhooks/opensanctions forged", method: "POST", path: "/webhooks/opensanctions", noKey: true, body: []byte(`{}`), status: 401, code: domain.ECodeUnauthorized,
			header: map[string]string{webhooks.HeaderID: "msg_x", webhooks.HeaderTimestamp: strconv.FormatInt(now.Unix(), 10), webhooks.HeaderSignature: "v1,AAAA v1,\xff"}},
		{name: "POST /webhooks/acme", method: "POST", path: "/webhooks/acme", noKey: true, body: []byte(`{}`), status: 404, code: domain.ECodeNotFound},
		signed("type as number", `{"type": 5}`, 400, "", domain.ECodeBadRequest),
		signed("data as string", `{"type": "screening.completed", "data": "x"}`, 400, "", domain.ECodeBadRequest),
		signed("response as string", `{"type": "screening.completed", "data": {"reference": "evs-1-1", "response": "x"}}`, 400, "", domain.ECodeBadRequest),
		signed("nested 10,001 levels", strings.Repeat("[", 10001)+strings.Repeat("]", 10001), 400, "", domain.ECodeBadRequest),
		signed("invalid UTF-8", "\xff{}", 400, "", domain.ECodeBadRequest),
		signed("no reference", `{"type": "screening.completed", "data": {"response": {}}}`, 422, "data", ""),
		signed("malformed reference", `{"type": "screening.completed", "data": {"reference": "evs-x", "response": {}}}`, 404, "", domain.ECodeNotFound),
		signed("reference beyond int64", `{"type": "screening.completed", "data": {"reference": "evs-99999999999999999999-1", "response": {}}}`, 404, "", domain.ECodeNotFound),
		signed("reference to no check", fmt.Sprintf(`{"type": "screening.completed", "data": {"reference": "evs-%d-999999", "response": {}}}`, f.account), 404, "", domain.ECodeNotFound),
		signed("reference to a registry check", fmt.Sprintf(`{"type": "screening.completed", "data": {"reference": "evs-%d-%d", "response": {}}}`, f.account, registry), 404, "", domain.ECodeNotFound),
		signed("unknown event type", `{"type": "screening.archived", "data": {}}`, 200, "", ""),
	}
	return out
}

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

// answer is what came back, from the gateway or a Lambda handler.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (f *hostileFixture) viaGateway(t *testing.T, c hostileCase) answer {
	t.Helper()
	target := f.url + c.path
	if c.query != "" {
		target += "?" + c.query
	}
	req, err := http.NewRequest(c.method, target, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	if !c.noKey {
		req.Header.Set("Authorization", "Bearer "+f.key)
	}
	for k, v := range c.header {
		req.Header[http.CanonicalHeaderKey(k)] = []string{v} // as given: the client checks only what HTTP forbids
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", c.name, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

// lambdaEvent is the proxy event API Gateway would hand the function of
// c's route (chosen as API Gateway's ANY method does), after the
// authorizer accepted f.key; false when no route has c's path.
func (f *hostileFixture) lambdaEvent(t *testing.T, c hostileCase) (events.APIGatewayProxyRequest, deploy.Route, bool) {
	t.Helper()
	u, err := url.Parse("http://x" + c.path + "?" + c.query)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	var route deploy.Route
	found := false
	for _, r := range deploy.Routes() {
		if _, ok := deploy.MatchPath(r.Path, u.Path); ok && (!found || r.Method == c.method) {
			route, found = r, true
		}
	}
	if !found {
		return events.APIGatewayProxyRequest{}, deploy.Route{}, false
	}
	params, _ := deploy.MatchPath(route.Path, u.Path)
	host := "abc123.execute-api.me-south-1.amazonaws.com"
	ev := events.APIGatewayProxyRequest{
		Resource: route.Path, Path: u.Path, HTTPMethod: c.method, PathParameters: params,
		MultiValueHeaders: map[string][]string{"Host": {host}, "X-Forwarded-Proto": {"https"}},
		RequestContext: events.APIGatewayProxyRequestContext{
			RequestID: "hostile", Stage: "dev", Path: "/dev" + u.Path, ResourcePath: route.Path, HTTPMethod: c.method, DomainName: host,
		},
	}
	if q := u.Query(); len(q) > 0 {
		ev.MultiValueQueryStringParameters = q
	}
	for k, v := range c.header {
		ev.MultiValueHeaders[k] = []string{v}
	}
	if !route.Public {
		ev.RequestContext.Authorizer = f.authzCtx
	}
	if utf8.Valid(c.body) {
		ev.Body = string(c.body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(c.body), true
	}
	return ev, route, true
}

func (f *hostileFixture) viaLambda(t *testing.T, c hostileCase) (answer, bool) {
	t.Helper()
	ev, route, ok := f.lambdaEvent(t, c)
	if !ok {
		return answer{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 29*time.Second)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "hostile"})
	resp, err := f.gw.Functions[route.Function](ctx, ev)
	if err != nil {
		t.Fatalf("%s: Lambda error (API Gateway answers 502): %v", c.name, err)
	}
	header := http.Header{}
	for k, v := range resp.Headers {
		header.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			t.Fatalf("%s: base64 body: %v", c.name, err)
		}
	}
	return answer{status: resp.StatusCode, header: header, body: body}, true
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

// TestHostileRequests sends every hostile case through the gateway and to
// the functions' Lambda handlers, then checks that nothing was written and
// no provider was called.
func TestHostileRequests(t *testing.T) {
	f := newHostileFixture(t)
	before := f.itemCounts(t)
	calls := f.providerCalls()

	var cases []hostileCase
	cases = append(cases, f.pathIDCases()...)
	cases = append(cases, f.filterCases()...)
	cases = append(cases, f.createCases()...)
	cases = append(cases, f.webhookCases(time.Now())...)
	cases = append(cases, f.headerCases()...)
	cases = append(cases, f.methodCases()...)

	sentGateway, sentLambda := 0, 0
	for _, c := range cases {
		providersBefore := f.providerCalls()
		checkAnswer(t, c, c.status, f.viaGateway(t, c))
		sentGateway++
		if !c.skipLambda {
			want := c.status
			if c.lambda != 0 {
				want = c.lambda
			}
			if a, ok := f.viaLambda(t, c); ok {
				checkAnswer(t, c, want, a)
				sentLambda++
			}
		}
		if n := f.providerCalls() - providersBefore; n != 0 {
			t.Errorf("%s: %d provider calls", c.name, n)
		}
	}
	t.Logf("%d requests through the gateway, %d to the Lambda handlers", sentGateway, sentLambda)
	if sentGateway+sentLambda < 300 {
		t.Errorf("only %d hostile requests", sentGateway+sentLambda)
	}

	after := f.itemCounts(t)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("table %s: %d items before, %d after the hostile requests", table, n, after[table])
		}
	}
	if n := f.providerCalls() - calls; n != 0 {
		t.Errorf("%d provider calls in all", n)
	}
}

// TestHostileAuthorizerEvents sends the authorizer's Lambda handler odd
// Authorization headers, as API Gateway would pass them: each is refused
// with exactly "Unauthorized" (API Gateway's 401), never another error;
// the key itself is allowed.
func TestHostileAuthorizerEvents(t *testing.T) {
	f := newHostileFixture(t)
	authorize, err := boot.As[boot.AuthorizerHandler]("authorizer", providers{}.deps(f.st, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{
		"empty": "", "invalid UTF-8": "Bearer \xff\xfe", "NUL": "Bearer \x00", "newline": "Bearer " + f.key + "\n" + f.key,
		"64 KB": "Bearer " + strings.Repeat("k", 64<<10), "Basic": "Basic dXNlcjpwYXNz", "prefix only": "Bearer evs_",
		"unknown key": "Bearer evs_" + strings.Repeat("A", 43), "key with a control byte": "Bearer " + f.key[:20] + "\x01" + f.key[21:],
	}
	for b := 0; b < 0x20; b++ {
		headers[fmt.Sprintf("control 0x%02X", b)] = "Bearer " + string([]byte{byte(b)})
	}
	for name, h := range headers {
		ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Type: "REQUEST", MethodArn: "arn:aws:execute-api:me-south-1:123456789012:abc/dev/GET/api/v1/entities",
			Headers: map[string]string{"Authorization": h},
		}
		if _, err := authorize(context.Background(), ev); !errors.Is(err, auth.ErrUnauthorized) || err.Error() != "Unauthorized" {
			t.Errorf("%s: %v, want Unauthorized", name, err)
		}
	}
	resp, err := authorize(context.Background(), events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type: "REQUEST", MethodArn: "arn:aws:execute-api:me-south-1:123456789012:abc/dev/GET/api/v1/entities",
		Headers: map[string]string{"authorization": " Bearer " + f.key + " "},
	})
	if err != nil || len(resp.PolicyDocument.Statement) != 1 || resp.PolicyDocument.Statement[0].Effect != "Allow" {
		t.Errorf("the key: %+v, %v", resp, err)
	}
}

// TestHostileIntegrationTimeout: the deliberate 5xx. A function that sleeps
// past the gateway's integration timeout is answered 504 in the error shape
// (INTEGRATION_TIMEOUT), at the timeout.
func TestHostileIntegrationTimeout(t *testing.T) {
	f := newHostileFixture(t)
	f.gw.Timeout = 200 * time.Millisecond
	list := f.gw.Functions["list-entities"]
	f.gw.Functions["list-entities"] = func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		time.Sleep(time.Second)
		return list(ctx, ev)
	}
	start := time.Now()
	a := f.viaGateway(t, hostileCase{name: "slow list", method: "GET", path: "/api/v1/entities"})
	took := time.Since(start)
	var body api.ErrorBody
	if a.status != http.StatusGatewayTimeout || json.Unmarshal(a.body, &body) != nil || body.Error.Code != domain.ECodeGatewayTimeout ||
		string(bytes.TrimSpace(a.body)) != deploy.GatewayResponseOf("INTEGRATION_TIMEOUT").Body() {
		t.Errorf("%d %s, want 504 %s", a.status, a.body, deploy.GatewayResponseOf("INTEGRATION_TIMEOUT").Body())
	}
	if took >= time.Second {
		t.Errorf("answered after %v: the gateway waited for the function", took)
	}
}

// TestHostileShortBody: a create whose body is shorter than its
// Content-Length gets 400 JSON within the gateway's read timeout (it used
// to hang for ever), runs no function and writes nothing.
func TestHostileShortBody(t *testing.T) {
	f := newHostileFixture(t)
	f.gw.ReadTimeout = 300 * time.Millisecond
	before := f.itemCounts(t)
	body := `{"entity": {"registration_number": "7001234560", "country_code": "SA"}}`
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(body[:20])) // and then nothing more
	}()
	req, _ := http.NewRequest("POST", f.url+"/api/v1/entities", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	defer resp.Body.Close()
	defer pw.Close()
	got, _ := io.ReadAll(resp.Body)
	checkAnswer(t, hostileCase{name: "short body", method: "POST", code: domain.ECodeBadRequest}, http.StatusBadRequest, answer{resp.StatusCode, resp.Header, got})
	if took := time.Since(start); took > f.gw.ReadTimeout+2*time.Second {
		t.Errorf("answered after %v; the read timeout is %v", took, f.gw.ReadTimeout)
	}
	after := f.itemCounts(t)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("table %s: %d items, then %d", table, n, after[table])
		}
	}
	if f.providerCalls() != 0 {
		t.Errorf("%d provider calls", f.providerCalls())
	}
}

// TestHostileRegistrationNormalisation: one normalisation for create,
// filter and lookup. A number created with spaces around it, or in lower
// case, is listed by the filter however it is spelled, and is taken.
func TestHostileRegistrationNormalisation(t *testing.T) {
	f := newHostileFixture(t)
	create := func(number, country string) answer {
		body, _ := json.Marshal(map[string]any{"entity": map[string]string{"registration_number": number, "country_code": country}})
		return f.viaGateway(t, hostileCase{name: "create " + number, method: "POST", path: "/api/v1/entities", body: body,
			header: map[string]string{"Content-Type": "application/json"}})
	}
	count := func(query string) int {
		a := f.viaGateway(t, hostileCase{name: "list " + query, method: "GET", path: "/api/v1/entities", query: query})
		var v struct {
			Entities []struct {
				RegistrationNumber string `json:"registration_number"`
			} `json:"entities"`
		}
		if a.status != 200 || json.Unmarshal(a.body, &v) != nil {
			t.Fatalf("list %s: %d %s", query, a.status, a.body)
		}
		return len(v.Entities)
	}
	for _, tt := range []struct{ created, country, stored string }{
		{" 7001234560 ", "SA", "7001234560"},
		{"cn-0042", "AE", "CN-0042"},
	} {
		if a := create(tt.created, tt.country); a.status != http.StatusCreated || !strings.Contains(string(a.body), `"registration_number":"`+tt.stored+`"`) {
			t.Fatalf("create %q: %d %.300s, want 201 stored as %s", tt.created, a.status, a.body, tt.stored)
		}
		for _, spelled := range []string{tt.stored, url.QueryEscape(tt.created), url.QueryEscape(strings.ToLower(tt.stored)), "%09" + tt.stored + "%0A"} {
			if n := count("registration_number=" + spelled); n != 1 {
				t.Errorf("registration_number=%s lists %d entities, want the one created as %q", spelled, n, tt.created)
			}
		}
		if a := create(strings.ToLower(tt.stored)+" ", tt.country); a.status != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), domain.MsgRegistrationTaken) {
			t.Errorf("the same number again: %d %s, want 422 %s", a.status, a.body, domain.MsgRegistrationTaken)
		}
	}
}
