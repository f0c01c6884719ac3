package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestListFilterLimits: every list filter is checked for its text (control
// bytes, invalid UTF-8, length) before anything else, refused on its own
// field with a message that never echoes a huge value, and registration
// numbers are filtered in the one normalised form create stores.
func TestListFilterLimits(t *testing.T) {
	kb64 := strings.Repeat("7", 64<<10)
	tests := []struct {
		name   string
		query  url.Values
		field  string // the refused field; "" when accepted
		msg    string // its message, when it matters
		regNum string // the filter applied, when accepted
	}{
		{name: "number trimmed and upper-cased", query: url.Values{"registration_number": {" cn-0012 "}}, regNum: "CN-0012"},
		{name: "number padded with spaces as sent by %20", query: url.Values{"registration_number": {" 7001234560 "}}, regNum: "7001234560"},
		{name: "number with a trailing newline trimmed, as create trims", query: url.Values{"registration_number": {"7001234560\n"}}, regNum: "7001234560"},
		{name: "number of 1 byte", query: url.Values{"registration_number": {"7"}}, regNum: "7"},
		{name: "number of 64 bytes", query: url.Values{"registration_number": {strings.Repeat("7", 64)}}, regNum: strings.Repeat("7", 64)},
		{name: "number of 65 bytes", query: url.Values{"registration_number": {strings.Repeat("7", 65)}}, field: "registration_number", msg: "must be at most 64 bytes"},
		{name: "number of 1024 bytes (DynamoDB's key limit)", query: url.Values{"registration_number": {strings.Repeat("7", 1024)}}, field: "registration_number", msg: "must be at most 64 bytes"},
		{name: "number of 64 KB", query: url.Values{"registration_number": {kb64}}, field: "registration_number", msg: "must be at most 64 bytes"},
		{name: "number with NUL", query: url.Values{"registration_number": {"700\x00123"}}, field: "registration_number", msg: domain.MsgControl},
		{name: "number with ESC", query: url.Values{"registration_number": {"700\x1b123"}}, field: "registration_number", msg: domain.MsgControl},
		{name: "number with DEL", query: url.Values{"registration_number": {"700\x7f123"}}, field: "registration_number", msg: domain.MsgControl},
		{name: "number with a C1 control", query: url.Values{"registration_number": {"700\u0085123"}}, field: "registration_number", msg: domain.MsgControl},
		{name: "number of invalid UTF-8", query: url.Values{"registration_number": {"\xff\xfe"}}, field: "registration_number", msg: domain.MsgInvalidUTF8},
		{name: "number of white space only", query: url.Values{"registration_number": {"   "}}, field: "registration_number", msg: msgBlank},
		{name: "number given twice", query: url.Values{"registration_number": {"7001234560", "7001234561"}}, field: "registration_number", msg: msgGivenOnce},
		{name: "number empty is no filter", query: url.Values{"registration_number": {""}}},

		{name: "country of 16 bytes, padded", query: url.Values{"country_code": {"  sa" + strings.Repeat(" ", 12)}}},
		{name: "country of 17 bytes", query: url.Values{"country_code": {strings.Repeat("S", 17)}}, field: "country_code", msg: "must be at most 16 bytes"},
		{name: "country of 64 KB", query: url.Values{"country_code": {kb64}}, field: "country_code", msg: "must be at most 16 bytes"},
		{name: "country with a control byte", query: url.Values{"country_code": {"S\x01A"}}, field: "country_code", msg: domain.MsgControl},
		{name: "country of invalid UTF-8", query: url.Values{"country_code": {"S\xc0"}}, field: "country_code", msg: domain.MsgInvalidUTF8},
		{name: "country unknown", query: url.Values{"country_code": {"ZZ"}}, field: "country_code", msg: `Country "ZZ" is not a country the service knows`},
		{name: "country given twice", query: url.Values{"country_code": {"SA", "AE"}}, field: "country_code", msg: msgGivenOnce},

		{name: "timestamp padded", query: url.Values{"updated_since": {" 2026-01-31 "}}},
		{name: "timestamp of 65 bytes", query: url.Values{"updated_since": {strings.Repeat("2", 65)}}, field: "updated_since", msg: "must be at most 64 bytes"},
		{name: "timestamp of 64 KB", query: url.Values{"updated_since": {kb64}}, field: "updated_since", msg: "must be at most 64 bytes"},
		{name: "timestamp with a control byte", query: url.Values{"updated_since": {"2026-01-31\x00"}}, field: "updated_since", msg: domain.MsgControl},
		{name: "timestamp of invalid UTF-8", query: url.Values{"updated_since": {"2026-01-31\xff"}}, field: "updated_since", msg: domain.MsgInvalidUTF8},
		{name: "timestamp given twice", query: url.Values{"updated_since": {"2026-01-31", "2026-02-01"}}, field: "updated_since", msg: msgGivenOnce},

		// Paging never fails, whatever is sent.
		{name: "page of 64 KB", query: url.Values{"page": {kb64}, "per_page": {kb64}}},
		{name: "page with control bytes", query: url.Values{"page": {"1\x00"}, "per_page": {"\x7f"}}},
		{name: "page of invalid UTF-8", query: url.Values{"page": {"\xff"}, "per_page": {"\xc3"}}},
		{name: "page as JSON", query: url.Values{"page": {"[1]"}, "per_page": {`{"n":5}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := parseListQuery(tt.query, countries)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if q.filter.RegistrationNumber != tt.regNum {
					t.Errorf("filtered on %q, want %q", q.filter.RegistrationNumber, tt.regNum)
				}
				if q.page < 1 || q.perPage < 1 || q.perPage > MaxPerPage {
					t.Errorf("paging %d/%d out of bounds", q.page, q.perPage)
				}
				return
			}
			fields := domain.ErrorFields(err)
			if domain.ErrorCode(err) != domain.ECodeInvalid || len(fields) != 1 || len(fields[tt.field]) != 1 {
				t.Fatalf("err = %v, want one message on %s", err, tt.field)
			}
			if got := fields[tt.field][0]; tt.msg != "" && got != tt.msg {
				t.Errorf("message %q, want %q", got, tt.msg)
			}
			if got := fields[tt.field][0]; len(got) > 100 {
				t.Errorf("message of %d bytes: the value was echoed", len(got))
			}
		})
	}
}

// TestRegistrationFilterIsCreatesNormalisation: whatever spelling of a
// number create accepts, the filter finds it under the same form.
func TestRegistrationFilterIsCreatesNormalisation(t *testing.T) {
	for _, sent := range []string{"7001234560", " 7001234560 ", "\t7001234560\r\n", "cn-0012", " Cn-0012"} {
		q, err := parseListQuery(url.Values{"registration_number": {sent}}, countries)
		if err != nil {
			t.Fatalf("%q: %v", sent, err)
		}
		if want := domain.NormalizeRegistration(sent); q.filter.RegistrationNumber != want {
			t.Errorf("%q filtered as %q, want create's %q", sent, q.filter.RegistrationNumber, want)
		}
		// Links carry the filter as it was sent.
		if q.filterParams.Get("registration_number") != sent {
			t.Errorf("%q carried into links as %q", sent, q.filterParams.Get("registration_number"))
		}
	}
}

// spyLister fails the test if the store is reached.
type spyLister struct{ calls int }

func (s *spyLister) ListEntities(context.Context, int64, domain.EntityFilter, int, int) (domain.EntityPage, error) {
	s.calls++
	return domain.EntityPage{Entities: []domain.Entity{}}, nil
}

// TestRefusedFiltersNeverReachTheStore: a refused filter is answered 422
// with the contract's body before any store call.
func TestRefusedFiltersNeverReachTheStore(t *testing.T) {
	for _, query := range []string{
		"registration_number=" + strings.Repeat("7", 1024),
		"registration_number=7%00",
		"registration_number=%FF",
		"country_code=" + strings.Repeat("x", 64<<10),
		"updated_since=2026-01%0A-01",
		"registration_number=1&registration_number=2",
	} {
		spy := &spyLister{}
		h := NewListEntities(spy, countries)
		req := httptest.NewRequest("GET", "/api/v1/entities?"+query, nil)
		req = req.WithContext(auth.NewContext(req.Context(), auth.Principal{AccountID: 1, Permissions: []string{domain.PermEntityView}}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body ValidationBody
		if rec.Code != http.StatusUnprocessableEntity || json.Unmarshal(rec.Body.Bytes(), &body) != nil || len(body.Errors) != 1 {
			t.Errorf("%.60s: %d %.200s, want 422 with one field", query, rec.Code, rec.Body)
		}
		if spy.calls != 0 {
			t.Errorf("%.60s reached the store", query)
		}
	}
}

func TestValidIdempotencyKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"order-7001234560", true},
		{"a", true},
		{strings.Repeat("k", MaxIdempotencyKeyBytes), true},
		{strings.Repeat("k", MaxIdempotencyKeyBytes+1), false},
		{strings.Repeat("é", 127), true},  // 254 bytes
		{strings.Repeat("é", 128), false}, // 256 bytes: the limit is in bytes
		{"", false},
		{" ", false},
		{"\t \r\n", false},
		{"\xff", false},
		{"ok\xc0", false},
		{" padded ", true},
	}
	for _, tt := range tests {
		if got := ValidIdempotencyKey(tt.key); got != tt.want {
			t.Errorf("ValidIdempotencyKey(%.30q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// TestInputLimitsDocumented holds README's "Input limits" table to the
// limits in this package.
func TestInputLimitsDocumented(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	_, section, ok := strings.Cut(readme, "### Input limits")
	if !ok {
		t.Fatal(`shared/api/README.md has no "### Input limits" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{
		"`registration_number`", strconv.Itoa(domain.MaxRegistrationNumber) + " bytes",
		"`country_code`", strconv.Itoa(MaxCountryCodeParam) + " bytes",
		"`updated_since`", strconv.Itoa(MaxTimestampParam) + " bytes",
		"`page`", "`per_page`", strconv.Itoa(MaxPerPage),
		"`{id}`", strconv.FormatInt(MaxID, 10),
		"`{provider}`",
		"`Idempotency-Key`", strconv.Itoa(MaxIdempotencyKeyBytes) + " bytes",
		msgGivenOnce, domain.MsgControl, domain.MsgInvalidUTF8,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the API README's input limits do not mention %s", want)
		}
	}
}
