package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

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
		{"legal name with an escape", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": "Acme\u001b[31m"}}`, 422, "legal_name"},
		{"legal name with a line break", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": "Acme\nLtd"}}`, 422, "legal_name"},
		{"legal name with a bidi override", `{"entity": {"registration_number": "7001234560", "country_code": "SA", "legal_name": "Acme\u202eLtd"}}`, 422, "legal_name"},
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
