package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

var at = time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)

const createBody = `{"entity":{"registration_number":"7001234567","country_code":"SA","legal_name":"Acme"}}`

// quiet drops r's log lines: the answers are what these tests check.
func quiet(r *http.Request) *http.Request {
	return r.WithContext(logging.WithLogger(r.Context(), slog.New(slog.DiscardHandler)))
}

// createWorld is one create's store: what BeginIdempotent finds, what the
// claim, the commit and the read-back answer, and the calls made.
type createWorld struct {
	// held: BeginIdempotent finds this record, so the key is not claimed;
	// an empty RequestHash stands for the request's own.
	held      *domain.IdempotencyRecord
	claimErr  error
	commitErr error
	// readBack: IdempotencyRecord's answer (not_found when nil); an empty
	// RequestHash stands for the request's own.
	readBack *domain.IdempotencyRecord
	calls    []string
}

// created is the entity the commit makes.
func created(d domain.EntityDetail) domain.EntityDetail {
	d.Entity.ID = 42
	return d
}

func (w *createWorld) handler() http.Handler {
	var hash string // the request's, as BeginIdempotent was given it
	own := func(rec domain.IdempotencyRecord) domain.IdempotencyRecord {
		if rec.RequestHash == "" {
			rec.RequestHash = hash
		}
		return rec
	}
	call := func(format string, args ...any) { w.calls = append(w.calls, fmt.Sprintf(format, args...)) }
	store := &apitest.EntityCreator{
		BeginIdempotentFn: func(_ context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error) {
			call("BeginIdempotent(%d,%s,%s,%s,%s)", accountID, key, now.Format(time.RFC3339Nano), ttl, lock)
			hash = requestHash
			if w.held != nil {
				return own(*w.held), false, nil
			}
			return domain.IdempotencyRecord{RequestHash: requestHash, State: domain.IdempotencyInProgress}, true, nil
		},
		CountryConfigFn: func(_ context.Context, accountID int64, code string) (domain.CountryConfig, error) {
			call("CountryConfig(%d,%s)", accountID, code)
			return domain.DefaultCountryConfig(accountID, code, 682, at), nil
		},
		ClaimRegistrationFn: func(_ context.Context, accountID int64, country, number, _ string, now time.Time, lease time.Duration) error {
			call("ClaimRegistration(%d,%s,%s,%s,%s)", accountID, country, number, now.Format(time.RFC3339Nano), lease)
			return w.claimErr
		},
		ReserveCheckIDsFn: func(_ context.Context, _ int64, n int) ([]int64, error) {
			call("ReserveCheckIDs(%d)", n)
			return make([]int64, n), nil
		},
		CommitEntityFn: func(_ context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error) {
			if o.Idempotency == nil {
				call("CommitEntity(no key)")
			} else {
				call("CommitEntity(%s,%d)", o.Idempotency.Key, o.Idempotency.Status)
			}
			return created(d), w.commitErr
		},
		ReleaseRegistrationFn: func(_ context.Context, _ int64, country, number, _ string) error {
			call("ReleaseRegistration(%s,%s)", country, number)
			return nil
		},
		IdempotencyRecordFn: func(_ context.Context, _ int64, key string, _ time.Time) (domain.IdempotencyRecord, error) {
			call("IdempotencyRecord(%s)", key)
			if w.readBack == nil {
				return domain.IdempotencyRecord{}, domain.Errorf(domain.ECodeNotFound, "no record")
			}
			return own(*w.readBack), nil
		},
		CompleteIdempotentFn: func(_ context.Context, _ int64, key, _ string, status int, _ string) error {
			call("CompleteIdempotent(%s,%d)", key, status)
			return nil
		},
		ReleaseIdempotentFn: func(_ context.Context, _ int64, key, _ string) error {
			call("ReleaseIdempotent(%s)", key)
			return nil
		},
	}
	intake := &apitest.IntakeRunner{IntakeFn: func(_ context.Context, in checks.IntakeInput) domain.EntityDetail {
		call("Intake(%s,%s,%s)", in.CountryCode, in.RegistrationNumber, in.DeclaredName)
		return domain.EntityDetail{Entity: domain.Entity{AccountID: in.AccountID, RegistrationNumber: in.RegistrationNumber,
			LegalName: in.DeclaredName, CountryCode: in.CountryCode, CountryID: in.CountryID, UpdatedAt: at}}
	}}
	return api.NewCreateEntity(api.CreateEntity{Store: store, Intake: intake, Countries: country.ISO(), Clock: domain.FixedClock(at)})
}

// TestCreateIdempotency: each branch of a create with and without an
// Idempotency-Key, with its exact answer and the store calls it makes.
func TestCreateIdempotency(t *testing.T) {
	createdBody := func() string {
		d := created(domain.EntityDetail{Entity: domain.Entity{AccountID: 7, RegistrationNumber: "7001234567", LegalName: "Acme", CountryCode: "SA", CountryID: 682, UpdatedAt: at}})
		b, _ := json.Marshal(api.EntityView(d))
		return string(b) + "\n"
	}()
	const (
		begin    = "BeginIdempotent(7,k1,2026-03-04T05:06:07.008Z,24h0m0s,30s)"
		cc       = "CountryConfig(7,SA)"
		claim    = "ClaimRegistration(7,SA,7001234567,2026-03-04T05:06:07.008Z,30s)"
		reserve  = "ReserveCheckIDs(2)"
		intake   = "Intake(SA,7001234567,Acme)"
		commit   = "CommitEntity(k1,201)"
		release  = "ReleaseRegistration(SA,7001234567)"
		readBack = "IdempotencyRecord(k1)"
	)
	taken := &domain.Error{Code: domain.ECodeInvalid, Message: "Validation failed.", Fields: map[string][]string{"registration_number": {domain.MsgRegistrationTaken}}}
	kept := &domain.IdempotencyRecord{State: domain.IdempotencyCompleted, Status: http.StatusCreated, Body: `{"id":42}`}
	replayed := http.Header{"Location": {"/api/v1/entities/42"}, "Idempotent-Replayed": {"true"}}
	tests := []struct {
		name       string
		key        string
		w          createWorld
		wantStatus int
		wantBody   string
		wantHeader http.Header // these, exactly; others may be present
		wantCalls  []string
	}{
		{name: "no key: created", wantStatus: 201, wantBody: createdBody,
			wantHeader: http.Header{"Location": {"/api/v1/entities/42"}, "Idempotent-Replayed": nil},
			wantCalls:  []string{cc, claim, reserve, intake, "CommitEntity(no key)"}},
		{name: "new key: created, the answer kept by the commit", key: "k1", wantStatus: 201, wantBody: createdBody,
			wantHeader: http.Header{"Location": {"/api/v1/entities/42"}, "Idempotent-Replayed": nil},
			wantCalls:  []string{begin, cc, claim, reserve, intake, commit}},
		{name: "same key, same body: replayed", key: "k1", w: createWorld{held: kept},
			wantStatus: 201, wantBody: `{"id":42}`, wantHeader: replayed, wantCalls: []string{begin}},
		{name: "same key, different body: refused", key: "k1",
			w:          createWorld{held: &domain.IdempotencyRecord{RequestHash: "another", State: domain.IdempotencyCompleted, Status: 201, Body: `{"id":42}`}},
			wantStatus: 422, wantBody: `{"errors":{"idempotency_key":["was already used with a different request"]}}` + "\n",
			wantHeader: http.Header{"Idempotent-Replayed": nil}, wantCalls: []string{begin}},
		{name: "same key, still in flight", key: "k1", w: createWorld{held: &domain.IdempotencyRecord{State: domain.IdempotencyInProgress}},
			wantStatus: 409, wantBody: `{"error":{"code":"conflict","message":"A request with this Idempotency-Key is still being processed; retry shortly."}}` + "\n",
			wantHeader: http.Header{"Retry-After": {"1"}}, wantCalls: []string{begin}},
		{name: "blank key: refused before the store", key: "   ",
			wantStatus: 422, wantBody: `{"errors":{"idempotency_key":["must be 1 to 255 bytes of UTF-8, not blank"]}}` + "\n"},
		{name: "lost commit read back: its answer replayed", key: "k1", w: createWorld{claimErr: taken, readBack: kept},
			wantStatus: 201, wantBody: `{"id":42}`, wantHeader: replayed, wantCalls: []string{begin, cc, claim, readBack}},
		{name: "read back finds another request's answer: refusal kept", key: "k1",
			w:          createWorld{claimErr: taken, readBack: &domain.IdempotencyRecord{RequestHash: "another", State: domain.IdempotencyCompleted, Status: 201}},
			wantStatus: 422, wantBody: `{"errors":{"registration_number":["has already been taken"]}}` + "\n",
			wantCalls: []string{begin, cc, claim, readBack, "CompleteIdempotent(k1,422)"}},
		{name: "number taken, no earlier attempt: refusal kept", key: "k1", w: createWorld{claimErr: taken},
			wantStatus: 422, wantBody: `{"errors":{"registration_number":["has already been taken"]}}` + "\n",
			wantCalls: []string{begin, cc, claim, readBack, "CompleteIdempotent(k1,422)"}},
		{name: "key taken over at commit: nothing kept", key: "k1", w: createWorld{commitErr: domain.Errorf(domain.ECodeConflict, "Taken over.")},
			wantStatus: 409, wantBody: `{"error":{"code":"conflict","message":"Taken over."}}` + "\n",
			wantCalls: []string{begin, cc, claim, reserve, intake, commit, release, readBack}},
		{name: "commit outcome unknown: key and number left to lapse", key: "k1", w: createWorld{commitErr: domain.Errorf(domain.ECodeUnavailable, "Unknown.")},
			wantStatus: 503, wantBody: `{"error":{"code":"service_unavailable","message":"Unknown."}}` + "\n",
			wantHeader: http.Header{"Retry-After": {"5"}}, wantCalls: []string{begin, cc, claim, reserve, intake, commit}},
		{name: "commit fault: key and number released", key: "k1", w: createWorld{commitErr: errors.New("boom")},
			wantStatus: 500, wantBody: `{"error":{"code":"internal_error","message":"An internal error occurred."}}` + "\n",
			wantCalls: []string{begin, cc, claim, reserve, intake, commit, release, "ReleaseIdempotent(k1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/entities", strings.NewReader(createBody))
			r.Header.Set("Content-Type", "application/json")
			if tt.key != "" {
				r.Header.Set("Idempotency-Key", tt.key)
			}
			r = r.WithContext(auth.NewContext(r.Context(), auth.Principal{AccountID: 7, Permissions: []string{domain.PermEntityCreate}}))
			rec := httptest.NewRecorder()
			tt.w.handler().ServeHTTP(rec, quiet(r))
			if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody {
				t.Errorf("answer %d %s\nwant   %d %s", rec.Code, rec.Body, tt.wantStatus, tt.wantBody)
			}
			for k, want := range tt.wantHeader {
				if got := rec.Header().Values(k); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if !reflect.DeepEqual(tt.w.calls, tt.wantCalls) {
				t.Errorf("calls = %q\nwant    %q", tt.w.calls, tt.wantCalls)
			}
		})
	}
}
