package api

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// This file is where every query parameter and path id of the API is read
// and checked, before anything reaches the store: DynamoDB refuses keys over
// 1,024 bytes with a 500-worthy ValidationException, and a value echoed in a
// message must stay short. The README's "Input limits" table lists the same
// limits; TestInputLimitsDocumented holds the two together.

// Limits of the path ids and list filters.
const (
	// MaxID is the largest id a path may name: 2^53, the largest integer a
	// JSON number keeps exactly in every client.
	MaxID = 1 << 53
	// maxPathID bounds a path id in bytes: MaxID's 16 digits and ".md".
	maxPathID = len("9007199254740992.md")
	// MaxCountryCodeParam bounds country_code, white space included: an
	// alpha-2 code with room for padding, nowhere near anything absurd.
	MaxCountryCodeParam = 16
	// MaxTimestampParam bounds updated_since: the longest ISO 8601 form we
	// read ("2026-01-31T12:30:00.123456789+03:00") is 35 bytes.
	MaxTimestampParam = 64
	// MaxCursorParam bounds the cursor a Link next URL carries (the store
	// writes fewer than 150 bytes); a longer one is ignored.
	MaxCursorParam = 256
)

// Messages of refused filters (besides each filter's own).
const (
	msgGivenOnce = "must be given once"
	msgBlank     = "can't be blank"
	msgTimestamp = "must be an ISO 8601 timestamp, such as 2026-01-31T09:30:00Z"
)

// ParsePathID reads the {id} of /entities/{id} and /entity_reviews/{id}: a
// positive decimal integer of at most MaxID, without sign or leading zeros
// (one id, one spelling), optionally followed by ".md" (Markdown). Anything
// else — control bytes, invalid UTF-8, a huge string — is not an id, and
// the handlers answer it exactly as an unknown id: 404 not_found.
func ParsePathID(raw string) (id int64, markdown bool, ok bool) {
	if len(raw) > maxPathID {
		return 0, false, false
	}
	digits, markdown := strings.CutSuffix(raw, ".md")
	if digits == "" || digits[0] == '0' {
		return 0, false, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > MaxID {
		return 0, false, false
	}
	return n, markdown, true
}

// parseListQuery reads the paging and filter parameters of GET /entities.
// Paging never fails: a nonsense page is 1 and a nonsense per_page is the
// default, a per_page over the maximum is the maximum. A filter that cannot
// be understood is refused (422 on its field), never ignored, because
// ignoring it would return the wrong entities; so is a filter given twice.
func parseListQuery(v url.Values, countries *country.Catalogue) (listQuery, error) {
	q := listQuery{page: 1, perPage: DefaultPerPage, filterParams: url.Values{}}
	if n, ok := pagingNumber(v.Get("page")); ok {
		q.page = n
	}
	if n, ok := pagingNumber(v.Get("per_page")); ok {
		q.perPage = min(n, MaxPerPage)
	}
	// A paging parameter like page: one the store cannot use is ignored,
	// never refused (the page is then placed by its number).
	if c := v.Get("cursor"); len(c) <= MaxCursorParam {
		q.filter.Cursor = c
	}
	fields := map[string][]string{}
	refuse := func(field, msg string) { fields[field] = append(fields[field], msg) }
	// filter returns a filter's one value, "" when it is absent or empty.
	filter := func(name string) string {
		vs := v[name]
		if len(vs) > 1 {
			refuse(name, msgGivenOnce)
			return ""
		}
		if len(vs) == 0 || vs[0] == "" {
			return ""
		}
		q.filterParams.Set(name, vs[0])
		return vs[0]
	}

	if s := filter("registration_number"); s != "" {
		// One normalisation for create, filter and lookup. Upper-casing
		// would turn invalid UTF-8 into U+FFFD, so that is checked first.
		n := domain.NormalizeRegistration(s)
		switch {
		case !utf8.ValidString(s):
			refuse("registration_number", domain.MsgInvalidUTF8)
		case n == "":
			refuse("registration_number", msgBlank)
		case domain.RegistrationTextProblem(n) != "":
			refuse("registration_number", domain.RegistrationTextProblem(n))
		default:
			q.filter.RegistrationNumber = n
		}
	}
	if s := filter("country_code"); s != "" {
		if p := domain.TextProblem(strings.TrimSpace(s), MaxCountryCodeParam); p != "" {
			refuse("country_code", p)
		} else if c, ok := countries.ByAlpha2(s); ok {
			q.filter.CountryCode = c.Alpha2
		} else {
			refuse("country_code", fmt.Sprintf("Country %q is not a country the service knows", s))
		}
	}
	if s := filter("updated_since"); s != "" {
		if p := domain.TextProblem(strings.TrimSpace(s), MaxTimestampParam); p != "" {
			refuse("updated_since", p)
		} else if t, err := ParseTimestamp(s); err == nil {
			q.filter.UpdatedSince = &t
		} else {
			refuse("updated_since", msgTimestamp)
		}
	}
	if len(fields) > 0 {
		return q, &domain.Error{Code: domain.ECodeInvalid, Message: "Validation failed.", Fields: fields}
	}
	return q, nil
}

// pagingNumber reads page or per_page: a positive decimal integer, possibly
// padded with white space; anything else is not one (and the caller falls
// back to the default, as the contract asks).
func pagingNumber(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n >= 1
}

// ParseTimestamp reads an ISO 8601 timestamp: RFC 3339 with any offset and
// optional fraction ("2026-01-31T09:30:00Z", "2026-01-31T12:30:00.5+03:00"),
// the basic form without separators ("20260131T093000Z"), or a date alone,
// meaning its midnight UTC. A time without an offset is ambiguous and refused,
// as is one whose UTC year is outside 0000–9999: stored timestamps compare as
// strings, and "10000-01-01…" would sort before "2026-…".
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) > MaxTimestampParam {
		// No layout is this long; do not make time.Parse walk it.
		return time.Time{}, fmt.Errorf("not an ISO 8601 timestamp: %d bytes", len(s))
	}
	layouts := []string{
		time.RFC3339Nano, "2006-01-02T15:04Z07:00", "20060102T150405Z0700", "20060102T150405Z07:00", "2006-01-02",
		// RFC 3339 requires "Z" or ±hh:mm; ISO 8601 also allows ±hhmm and ±hh.
		"2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z07",
	}
	for _, l := range layouts {
		t, err := time.Parse(l, s)
		if err != nil {
			continue
		}
		if y := t.UTC().Year(); y < 0 || y > 9999 {
			return time.Time{}, fmt.Errorf("timestamp %q is outside the years 0000 to 9999 in UTC", s)
		}
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 timestamp: %q", s)
}
