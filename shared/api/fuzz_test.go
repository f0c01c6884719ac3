package api

// Fuzz targets of the API's input rules. Each asserts properties of the
// answer, not only that nothing panics: refusals are refusals of the right
// field, accepted values round-trip, and an independent statement of each
// rule agrees with the code. Seeds are in testdata/fuzz/<target>/; `make
// fuzz` runs each target for FUZZTIME.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/httplambda"
)

// FuzzParseListQuery: paging is always within bounds and follows the
// contract's fallback rule; a refusal names only filters that were sent,
// with short messages; an accepted filter is the normalised, bounded value,
// and the filters carried into Link URLs parse back to the same query.
func FuzzParseListQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, rawQuery string) {
		v, _ := url.ParseQuery(rawQuery) // a bad escape still yields the rest
		q, err := parseListQuery(v, countries)

		wantPage, wantPer := 1, DefaultPerPage
		if n, e := strconv.Atoi(strings.TrimSpace(v.Get("page"))); e == nil && n >= 1 {
			wantPage = n
		}
		if n, e := strconv.Atoi(strings.TrimSpace(v.Get("per_page"))); e == nil && n >= 1 {
			wantPer = min(n, MaxPerPage)
		}
		if q.page != wantPage || q.perPage != wantPer {
			t.Fatalf("paging %d/%d, want %d/%d", q.page, q.perPage, wantPage, wantPer)
		}

		if err != nil {
			fields := domain.ErrorFields(err)
			if domain.ErrorCode(err) != domain.ECodeInvalid || len(fields) == 0 {
				t.Fatalf("refusal %v is not a validation failure", err)
			}
			for field, msgs := range fields {
				if !slices.Contains([]string{"registration_number", "country_code", "updated_since"}, field) {
					t.Fatalf("refused field %q is not a filter", field)
				}
				if len(v[field]) == 0 {
					t.Fatalf("refused %s, which was not sent", field)
				}
				for _, m := range msgs {
					if m == "" || len(m) > 200 || !utf8.ValidString(m) {
						t.Fatalf("message %q on %s", m, field)
					}
				}
			}
			return
		}

		for _, name := range []string{"registration_number", "country_code", "updated_since"} {
			if len(v[name]) > 1 {
				t.Fatalf("%s given %d times was accepted", name, len(v[name]))
			}
		}
		if sent := v.Get("registration_number"); sent == "" {
			if q.filter.RegistrationNumber != "" {
				t.Fatalf("filtering on %q, not sent", q.filter.RegistrationNumber)
			}
		} else {
			n := q.filter.RegistrationNumber
			if n != domain.NormalizeRegistration(sent) || n == "" || domain.RegistrationTextProblem(n) != "" || !utf8.ValidString(sent) {
				t.Fatalf("registration %q accepted as %q", sent, n)
			}
		}
		if sent := v.Get("country_code"); sent == "" {
			if q.filter.CountryCode != "" {
				t.Fatalf("filtering on country %q, not sent", q.filter.CountryCode)
			}
		} else if c, ok := countries.ByAlpha2(sent); !ok || c.Alpha2 != q.filter.CountryCode || len(sent) > MaxCountryCodeParam {
			t.Fatalf("country %q accepted as %q", sent, q.filter.CountryCode)
		}
		if sent := v.Get("updated_since"); sent == "" {
			if q.filter.UpdatedSince != nil {
				t.Fatalf("updated_since %v, not sent", q.filter.UpdatedSince)
			}
		} else if ts, e := ParseTimestamp(sent); e != nil || q.filter.UpdatedSince == nil || !q.filter.UpdatedSince.Equal(ts) {
			t.Fatalf("updated_since %q accepted as %v", sent, q.filter.UpdatedSince)
		}

		// What a Link URL carries reads back as the same query.
		link := url.Values{}
		for k, vs := range q.filterParams {
			link[k] = vs
		}
		link.Set("page", strconv.Itoa(q.page))
		link.Set("per_page", strconv.Itoa(q.perPage))
		back, err := url.ParseQuery(link.Encode())
		if err != nil {
			t.Fatalf("link query %q: %v", link.Encode(), err)
		}
		again, err := parseListQuery(back, countries)
		if err != nil || again.page != q.page || again.perPage != q.perPage || again.filter.RegistrationNumber != q.filter.RegistrationNumber ||
			again.filter.CountryCode != q.filter.CountryCode || (again.filter.UpdatedSince == nil) != (q.filter.UpdatedSince == nil) ||
			(q.filter.UpdatedSince != nil && !again.filter.UpdatedSince.Equal(*q.filter.UpdatedSince)) {
			t.Fatalf("link query %q reads as %+v (%v), want %+v", link.Encode(), again, err, q)
		}
	})
}

// FuzzParseTimestamp: an accepted timestamp is UTC, within the years the
// store can compare, its RFC 3339 form reads back as the same instant, and
// white space around it changes nothing; a refusal is the zero time.
func FuzzParseTimestamp(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimestamp(s)
		if err != nil {
			if !ts.IsZero() {
				t.Fatalf("refused %q but returned %v", s, ts)
			}
			return
		}
		if ts.Location() != time.UTC || ts.Year() < 0 || ts.Year() > 9999 {
			t.Fatalf("%q read as %v", s, ts)
		}
		back, err := ParseTimestamp(ts.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(ts) {
			t.Fatalf("%q read as %v, whose RFC 3339 form reads as %v (%v)", s, ts, back, err)
		}
		if stored, err := domain.ParseTime(domain.FormatTime(ts)); err != nil || stored.After(ts) {
			t.Fatalf("%q stored as %q: %v %v", s, domain.FormatTime(ts), stored, err)
		}
		padded, err := ParseTimestamp(" \t" + s + "\n ")
		if err != nil || !padded.Equal(ts) {
			t.Fatalf("%q padded reads as %v (%v), unpadded as %v", s, padded, err, ts)
		}
	})
}

// FuzzRegistrationRule runs a number through what create does to it —
// normalise, the text check, then the country's rule (CountryConfig.RegistrationProblem)
// — for Saudi Arabia's rule, the generic rule, and a country configured
// without a pattern. Each rule agrees with a hand-written statement of it,
// a refusal carries the rule's message, and an accepted number is already
// in its normal form (it round-trips through NormalizeRegistration).
func FuzzRegistrationRule(f *testing.F) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	saudi := domain.DefaultCountryConfig(1, "SA", 682, now)
	generic := domain.DefaultCountryConfig(1, "AE", 784, now)
	unset := generic
	unset.RegistrationPattern, unset.RegistrationMessage = "", ""
	f.Fuzz(func(t *testing.T, sent string) {
		saudi.RegistrationProblem(sent) // the raw text must not upset it either
		n := domain.NormalizeRegistration(sent)
		if n == "" || domain.RegistrationTextProblem(n) != "" {
			return // create refuses it before any rule
		}
		if got, want := saudi.RegistrationProblem(n) == "", isSaudiNumber(n); got != want {
			t.Fatalf("Saudi rule on %q: accepted %v, want %v", n, got, want)
		} else if !got && saudi.RegistrationProblem(n) != domain.SaudiRegistrationMessage {
			t.Fatalf("Saudi refusal of %q says %q", n, saudi.RegistrationProblem(n))
		}
		if got, want := generic.RegistrationProblem(n) == "", isGenericNumber(n); got != want {
			t.Fatalf("generic rule on %q: accepted %v, want %v", n, got, want)
		} else if !got && generic.RegistrationProblem(n) != domain.GenericRegistrationMessage {
			t.Fatalf("generic refusal of %q says %q", n, generic.RegistrationProblem(n))
		}
		if unset.RegistrationProblem(n) != generic.RegistrationProblem(n) {
			t.Fatalf("a country without a pattern judges %q unlike the generic rule", n)
		}
		if (saudi.RegistrationProblem(n) == "" || generic.RegistrationProblem(n) == "") && domain.NormalizeRegistration(n) != n {
			t.Fatalf("accepted %q is not in normal form", n)
		}
	})
}

// isSaudiNumber: ten ASCII digits, the first a 7.
func isSaudiNumber(s string) bool {
	if len(s) != 10 || s[0] != '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isGenericNumber: 1 to 40 ASCII letters, digits or dashes, not starting
// with a dash.
func isGenericNumber(s string) bool {
	if len(s) < 1 || len(s) > 40 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// FuzzParsePathID: an accepted id is in 1..MaxID and is the one spelling of
// itself (the raw text is exactly its decimal form, with ".md" when asked
// for Markdown); every id in range is accepted in that spelling.
func FuzzParsePathID(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string, n uint64) {
		id, md, ok := ParsePathID(raw)
		if ok {
			spelled := strconv.FormatInt(id, 10)
			if md {
				spelled += ".md"
			}
			if id < 1 || id > MaxID || spelled != raw {
				t.Fatalf("ParsePathID(%q) = %d, %v", raw, id, md)
			}
		} else if id != 0 || md {
			t.Fatalf("refused %q but returned %d, %v", raw, id, md)
		}
		want := int64(n%MaxID) + 1
		for _, suffix := range []string{"", ".md"} {
			if got, gotMD, ok := ParsePathID(strconv.FormatInt(want, 10) + suffix); !ok || got != want || gotMD != (suffix != "") {
				t.Fatalf("id %d%s read as %d, %v, %v", want, suffix, got, gotMD, ok)
			}
		}
	})
}

// fixedDetailer knows entity 7 alone.
type fixedDetailer struct{}

func (fixedDetailer) EntityDetail(ctx context.Context, accountID int64, id int64) (domain.EntityDetail, error) {
	e, err := fixedDetailer{}.Entity(ctx, accountID, id)
	return domain.EntityDetail{Entity: e}, err
}

func (fixedDetailer) Entity(_ context.Context, _ int64, id int64) (domain.Entity, error) {
	if id != 7 {
		return domain.Entity{}, errEntityNotFound()
	}
	return domain.Entity{ID: 7, UpdatedAt: time.Unix(0, 0), DossierRev: 1}, nil
}

func (fixedDetailer) Dossier(_ context.Context, e domain.Entity) (domain.EntityDetail, error) {
	return domain.EntityDetail{Entity: e}, nil
}

// FuzzMatchPath: a match rebuilds the path from the resource and its
// parameters (non-empty, without '/'); and get-entity's Lambda handler,
// given the path as API Gateway hands it over (decoded), answers 200 for
// entity 7's spellings and 404 JSON for everything else — never a Lambda
// error, whatever bytes the path holds.
func FuzzMatchPath(f *testing.F) {
	h := httplambda.New(NewGetEntity(fixedDetailer{}, countries), slog.New(slog.NewTextHandler(io.Discard, nil)))
	authz := auth.Principal{AccountID: 1, KeyPrefix: "evs_fuzz00", Permissions: []string{domain.PermEntityView}}.AuthorizerContext()
	f.Fuzz(func(t *testing.T, path string) {
		matched := false
		for _, r := range deploy.Routes() {
			params, ok := deploy.MatchPath(r.Path, path)
			if !ok {
				continue
			}
			matched = true
			rebuilt := r.Path
			for k, v := range params {
				greedy := strings.Contains(r.Path, "{"+k+"+}")
				if v == "" || (!greedy && strings.Contains(v, "/")) {
					t.Fatalf("%s on %q: %s = %q", r.Path, path, k, v)
				}
				if greedy {
					rebuilt = strings.Replace(rebuilt, "{"+k+"+}", v, 1)
				} else {
					rebuilt = strings.Replace(rebuilt, "{"+k+"}", v, 1)
				}
			}
			if strings.Trim(rebuilt, "/") != strings.Trim(path, "/") {
				t.Fatalf("%s on %q rebuilds %q", r.Path, path, rebuilt)
			}
		}
		if matched != (len(deploy.AllowedMethods(path)) > 0) {
			t.Fatalf("%q matched %v but allows %v", path, matched, deploy.AllowedMethods(path))
		}

		// The adapter gives a path without a leading '/' one; the handler
		// sees that path.
		seen := path
		if !strings.HasPrefix(seen, "/") {
			seen = "/" + seen
		}
		params, _ := deploy.MatchPath(deploy.BasePath+"/entities/{id}", seen)
		ev := events.APIGatewayProxyRequest{
			Resource: deploy.BasePath + "/entities/{id}", Path: path, HTTPMethod: "GET", PathParameters: params,
			RequestContext: events.APIGatewayProxyRequestContext{Path: "/dev" + path, DomainName: "api.example.com", Authorizer: authz},
		}
		resp, err := h(context.Background(), ev)
		if err != nil {
			t.Fatalf("%q: Lambda error %v", path, err)
		}
		id, _, idOK := ParsePathID(params["id"])
		wantFound := params != nil && idOK && id == 7
		switch {
		case wantFound && resp.StatusCode != http.StatusOK:
			t.Fatalf("%q: %d %s, want entity 7", path, resp.StatusCode, resp.Body)
		case !wantFound:
			var body ErrorBody
			if resp.StatusCode != http.StatusNotFound || json.Unmarshal([]byte(resp.Body), &body) != nil || body.Error.Code != domain.ECodeNotFound || body.Error.Message == "" {
				t.Fatalf("%q: %d %s, want 404 not_found JSON", path, resp.StatusCode, resp.Body)
			}
		}
	})
}

// keyStore records the Idempotency-Key create hands the store and answers
// that the key was used for another request, so that nothing else runs.
type keyStore struct {
	EntityCreator // nil: any other call panics, which the handler turns into a 500
	keys          []string
}

func (s *keyStore) BeginIdempotent(_ context.Context, _ int64, key, _ string, _ time.Time, _, _ time.Duration) (domain.IdempotencyRecord, bool, error) {
	s.keys = append(s.keys, key)
	return domain.IdempotencyRecord{RequestHash: "another request", State: domain.IdempotencyCompleted}, false, nil
}

// noIntake fails the test if a provider would be called.
type noIntake struct{ t *testing.T }

func (n noIntake) Intake(context.Context, checks.IntakeInput) domain.EntityDetail {
	n.t.Fatal("intake ran")
	return domain.EntityDetail{}
}

// FuzzIdempotencyKey sends create an Idempotency-Key header of any bytes.
// The store sees the key if and only if ValidIdempotencyKey accepts it, and
// then byte for byte as sent; a refused key is 422 on idempotency_key before
// any store call; no key at all never reaches the idempotency table.
func FuzzIdempotencyKey(f *testing.F) {
	principal := auth.Principal{AccountID: 1, Permissions: []string{domain.PermEntityCreate}}
	f.Fuzz(func(t *testing.T, key string) {
		st := &keyStore{}
		h := NewCreateEntity(CreateEntity{Store: st, Intake: noIntake{t}, Countries: countries, Clock: domain.SystemClock})
		req := httptest.NewRequest("POST", deploy.BasePath+"/entities", bytes.NewReader([]byte(`{}`)))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header["Idempotency-Key"] = []string{key} // as sent, unvalidated
		}
		req = req.WithContext(auth.NewContext(req.Context(), principal))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		var body ValidationBody
		if rec.Code != http.StatusUnprocessableEntity || json.Unmarshal(rec.Body.Bytes(), &body) != nil {
			t.Fatalf("key %q: %d %s, want 422", key, rec.Code, rec.Body)
		}
		switch {
		case key == "":
			if len(st.keys) != 0 || len(body.Errors["entity"]) == 0 {
				t.Fatalf("no key: store saw %q, answer %s", st.keys, rec.Body)
			}
		case ValidIdempotencyKey(key):
			if len(st.keys) != 1 || st.keys[0] != key {
				t.Fatalf("valid key %q reached the store as %q", key, st.keys)
			}
			if len(body.Errors["idempotency_key"]) != 1 || body.Errors["idempotency_key"][0] != "was already used with a different request" {
				t.Fatalf("valid key %q: %s", key, rec.Body)
			}
		default:
			if len(st.keys) != 0 {
				t.Fatalf("refused key %q reached the store", key)
			}
			if len(body.Errors) != 1 || len(body.Errors["idempotency_key"]) != 1 {
				t.Fatalf("refused key %q: %s, want 422 on idempotency_key", key, rec.Body)
			}
		}
	})
}
