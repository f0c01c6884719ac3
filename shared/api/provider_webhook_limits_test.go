package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/screening/screeningtest"
	"github.com/evs-kyb/evs/shared/webhooks"
)

const limitsAnswer = `{"type":"screening.completed","data":{"reference":"evs-7-42","dataset":"sanctions","response":{"status":200,"results":[],"total":{"value":0}}}}`

// maxRefusalLine bounds the one log line of a refused webhook, whatever
// its headers: logging.MaxBounded for the id, JSON-escaped, and the rest.
const maxRefusalLine = 2*logging.MaxBounded + 400

// webhookExchange is one request to the provider webhook and what came of
// it: the answer, the calls to the screening service, the log lines.
type webhookExchange struct {
	status  int
	body    api.ErrorBody
	applied []string // the webhook ids Apply was called with
	log     []string
}

// postWebhook posts body with the three headers to a provider webhook
// whose secret is secret (none when nil) and whose screening service
// applies anything.
func postWebhook(t testing.TB, secret webhooks.Secret, id, timestamp, signatures string) webhookExchange {
	t.Helper()
	var x webhookExchange
	secrets := map[string][]webhooks.Secret{}
	if secret != nil {
		secrets[checks.ProviderOpenSanctions] = []webhooks.Secret{secret}
	}
	h := api.NewProviderWebhook(api.ProviderWebhook{
		Secrets: secrets,
		Screening: &apitest.ScreeningApplier{
			ProvidesFn: func(p string) bool { return p == checks.ProviderOpenSanctions },
			ApplyFn: func(_ context.Context, _, webhookID string, _ screening.Answer) (bool, error) {
				x.applied = append(x.applied, webhookID)
				return true, nil
			},
		},
		Clock: domain.FixedClock(at),
	})
	r := httptest.NewRequest(http.MethodPost, "/webhooks/"+checks.ProviderOpenSanctions, strings.NewReader(limitsAnswer))
	for k, v := range map[string]string{webhooks.HeaderID: id, webhooks.HeaderTimestamp: timestamp, webhooks.HeaderSignature: signatures} {
		if v != "" {
			r.Header[http.CanonicalHeaderKey(k)] = []string{v} // as sent, unchecked
		}
	}
	var out bytes.Buffer
	r = r.WithContext(logging.WithLogger(r.Context(), slog.New(slog.NewJSONHandler(&out, nil))))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	x.status = rec.Code
	if rec.Code != http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &x.body); err != nil {
			t.Fatalf("answer %d %q: %v", rec.Code, rec.Body, err)
		}
	}
	if s := strings.TrimSpace(out.String()); s != "" {
		x.log = strings.Split(s, "\n")
	}
	return x
}

// TestProviderWebhookHeaderLimits: each webhook header at its limit is
// served, one byte over it is 400 bad_request, and so is an id with a byte
// that is not printable ASCII, signed or not (the limits are checked
// before the signature). Nothing over a limit reaches the screening
// service, and each refusal is one log line of bounded size naming the
// header and the rule, with the id as logging.Bounded renders it.
func TestProviderWebhookHeaderLimits(t *testing.T) {
	secret, err := webhooks.ParseSecret("whsec_c2VjcmV0")
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	pad := func(s string, n int) string { return strings.Repeat("0", n-len(s)) + s } // leading zeros: the same Unix time
	sign := func(id string) string { return webhooks.StandardSignature(secret, id, at.Unix(), []byte(limitsAnswer)) }
	// signatures of exactly n bytes, the good one last.
	sigsOf := func(id string, n int) string {
		good := sign(id)
		filler := "v1," + strings.Repeat("A", n-len(good)-len("v1,")-1)
		return filler + " " + good
	}
	const forged = "v1,Zm9yZ2Vk"
	printable := func() string {
		var b []byte
		for c := byte(0x20); c <= 0x7e; c++ {
			b = append(b, c)
		}
		return string(b)
	}()
	malformed := func(rule string) string { return "The webhook headers are malformed: " + rule + "." }
	tooLong := func(h string, n int) string { return malformed(h + " is longer than " + strconv.Itoa(n) + " bytes") }
	notPrintable := malformed("webhook-id must be printable ASCII (0x20 to 0x7E)")

	type headers struct{ id, ts, sigs string }
	tests := []struct {
		name    string
		h       headers
		sign    bool // the signature is replaced by a valid one (a rotation's others kept)
		noSec   bool // no secret configured for the provider
		status  int
		message string // the refusal's message
	}{
		{name: "ordinary, signed", h: headers{"msg_1", ts, ""}, sign: true, status: 200},
		{name: "id at 256 bytes, signed", h: headers{strings.Repeat("i", 256), ts, ""}, sign: true, status: 200},
		{name: "id of every printable byte, signed", h: headers{printable, ts, ""}, sign: true, status: 200},
		{name: "id at 257 bytes, signed", h: headers{strings.Repeat("i", 257), ts, ""}, sign: true, status: 400, message: tooLong("webhook-id", 256)},
		{name: "id at 257 bytes, unsigned", h: headers{strings.Repeat("i", 257), ts, forged}, status: 400, message: tooLong("webhook-id", 256)},
		// The size at which DynamoDB refused the receipt's key: a 500 before.
		{name: "id of 2,035 bytes, signed", h: headers{strings.Repeat("i", 2035), ts, ""}, sign: true, status: 400, message: tooLong("webhook-id", 256)},
		{name: "id of 100 KB, signed", h: headers{strings.Repeat("i", 100<<10), ts, ""}, sign: true, status: 400, message: tooLong("webhook-id", 256)},
		{name: "id of 100 KB, unsigned", h: headers{strings.Repeat("i", 100<<10), ts, forged}, status: 400, message: tooLong("webhook-id", 256)},
		{name: "id with NUL, signed", h: headers{"msg_\x00", ts, ""}, sign: true, status: 400, message: notPrintable},
		{name: "id with NUL, unsigned", h: headers{"msg_\x00", ts, forged}, status: 400, message: notPrintable},
		{name: "id with a newline, signed", h: headers{"msg_\n1", ts, ""}, sign: true, status: 400, message: notPrintable},
		{name: "id with a tab, unsigned", h: headers{"msg_\t1", ts, forged}, status: 400, message: notPrintable},
		{name: "id with DEL, signed", h: headers{"msg_\x7f", ts, ""}, sign: true, status: 400, message: notPrintable},
		{name: "id with ESC, unsigned", h: headers{"msg_\x1b[31m", ts, forged}, status: 400, message: notPrintable},
		{name: "id of UTF-8, signed", h: headers{"msg_é", ts, ""}, sign: true, status: 400, message: notPrintable},
		{name: "id of invalid UTF-8, unsigned", h: headers{"msg_\xff", ts, forged}, status: 400, message: notPrintable},
		{name: "timestamp at 32 bytes, signed", h: headers{"msg_1", pad(ts, 32), ""}, sign: true, status: 200},
		{name: "timestamp at 33 bytes, signed", h: headers{"msg_1", pad(ts, 33), ""}, sign: true, status: 400, message: tooLong("webhook-timestamp", 32)},
		{name: "timestamp at 33 bytes, unsigned", h: headers{"msg_1", pad(ts, 33), forged}, status: 400, message: tooLong("webhook-timestamp", 32)},
		{name: "timestamp of 100 KB, unsigned", h: headers{"msg_1", pad(ts, 100<<10), forged}, status: 400, message: tooLong("webhook-timestamp", 32)},
		{name: "signatures at 4096 bytes, signed", h: headers{"msg_1", ts, sigsOf("msg_1", 4096)}, status: 200},
		{name: "signatures at 4097 bytes, signed", h: headers{"msg_1", ts, sigsOf("msg_1", 4097)}, status: 400, message: tooLong("webhook-signature", 4096)},
		{name: "signatures at 4097 bytes, unsigned", h: headers{"msg_1", ts, "v1," + strings.Repeat("A", 4094)}, status: 400, message: tooLong("webhook-signature", 4096)},
		// A request without a signature is unauthenticated before it is
		// malformed; a provider without a secret fails closed first.
		{name: "id of 100 KB, no signature", h: headers{strings.Repeat("i", 100<<10), ts, ""}, status: 401,
			message: "The webhook signature could not be verified: webhook-id, webhook-timestamp and webhook-signature are required."},
		{name: "id of 100 KB, no secret configured", h: headers{strings.Repeat("i", 100<<10), ts, forged}, noSec: true, status: 401,
			message: "The webhook signature could not be verified: no signing secret is configured for this provider."},
		// Only the id is stored and logged: other bytes in the signatures
		// are only compared, and fail to match.
		{name: "signatures with a byte over 0x7E, unsigned", h: headers{"msg_1", ts, "v1,AAAA v1,\xff"}, status: 401,
			message: "The webhook signature could not be verified: no signature matches."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.sign {
				tt.h.sigs = sign(tt.h.id)
			}
			sec := secret
			if tt.noSec {
				sec = nil
			}
			x := postWebhook(t, sec, tt.h.id, tt.h.ts, tt.h.sigs)
			if x.status != tt.status {
				t.Fatalf("status %d (%+v), want %d", x.status, x.body, tt.status)
			}
			if tt.status == 200 {
				if len(x.applied) != 1 || x.applied[0] != tt.h.id {
					t.Errorf("applied %.40q, want the id once", x.applied)
				}
				return
			}
			if len(x.applied) != 0 {
				t.Errorf("a refused webhook reached the screening service: %.40q", x.applied)
			}
			wantCode := domain.ECodeBadRequest
			if tt.status == 401 {
				wantCode = domain.ECodeUnauthorized
			}
			if x.body.Error.Code != wantCode || x.body.Error.Message != tt.message {
				t.Errorf("answer %+v, want %s %q", x.body, wantCode, tt.message)
			}
			if len(x.log) != 1 {
				t.Fatalf("%d log lines, want 1:\n%s", len(x.log), strings.Join(x.log, "\n"))
			}
			if len(x.log[0]) > maxRefusalLine {
				t.Errorf("the refusal's line is %d bytes, over %d", len(x.log[0]), maxRefusalLine)
			}
			var line map[string]any
			if err := json.Unmarshal([]byte(x.log[0]), &line); err != nil {
				t.Fatal(err)
			}
			if line["webhook_id"] != logging.Bounded(tt.h.id) || line["status"] != float64(tt.status) || line["provider"] != checks.ProviderOpenSanctions {
				t.Errorf("line %s: want webhook_id %q, status %d", x.log[0], logging.Bounded(tt.h.id), tt.status)
			}
			if reason, _ := line["reason"].(string); !tt.noSec && !strings.Contains(tt.message, reason) {
				t.Errorf("line %s: reason %q, not the answer's", x.log[0], reason)
			}
		})
	}
}

// TestProviderWebhookLimitsBeforeTheStore: with the real screening service
// over a store that records every call, a signed webhook whose id is over
// its limit (the 2,035 bytes that made DynamoDB fail) is a 400 with no store
// call; the same request with an id at the limit does reach the store.
func TestProviderWebhookLimitsBeforeTheStore(t *testing.T) {
	secret, err := webhooks.ParseSecret("whsec_c2VjcmV0")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	record := func(name string) error {
		calls = append(calls, name)
		return errors.New("the store is not reachable in this test")
	}
	store := &screeningtest.Store{
		CheckFn:           func(context.Context, int64, int64) (domain.Check, error) { return domain.Check{}, record("Check") },
		EntityFn:          func(context.Context, int64, int64) (domain.Entity, error) { return domain.Entity{}, record("Entity") },
		ApplyScreeningFn:  func(context.Context, domain.ScreeningUpdate) (bool, error) { return false, record("ApplyScreening") },
		EntityChecksFn:    func(context.Context, int64, int64, int) ([]domain.Check, error) { return nil, record("EntityChecks") },
		ReserveCheckIDsFn: func(context.Context, int64, int) ([]int64, error) { return nil, record("ReserveCheckIDs") },
		EntityReviewsFn:   func(context.Context, int64, int64, int) ([]domain.Review, error) { return nil, record("EntityReviews") },
		WebhookSeenFn:     func(context.Context, string, string, time.Time) (bool, error) { return false, record("WebhookSeen") },
	}
	svc := &screening.Service{Store: store, Clock: domain.FixedClock(at),
		Readers: map[string]screening.Reader{checks.ProviderOpenSanctions: &screeningtest.Reader{
			ReadFn: func(string, checks.YenteQueryResponse) checks.ScreeningResult { return checks.ScreeningResult{} },
		}}}
	h := api.NewProviderWebhook(api.ProviderWebhook{
		Secrets:   map[string][]webhooks.Secret{checks.ProviderOpenSanctions: {secret}},
		Screening: svc,
		Clock:     domain.FixedClock(at),
	})
	for _, c := range []struct {
		idBytes   int
		status    int
		wantStore bool
	}{{2035, 400, false}, {webhooks.MaxIDBytes + 1, 400, false}, {webhooks.MaxIDBytes, 500, true}} {
		t.Run(fmt.Sprintf("id of %d bytes", c.idBytes), func(t *testing.T) {
			calls = nil
			id := strings.Repeat("i", c.idBytes)
			r := httptest.NewRequest(http.MethodPost, "/webhooks/"+checks.ProviderOpenSanctions, strings.NewReader(limitsAnswer))
			r.Header.Set(webhooks.HeaderID, id)
			r.Header.Set(webhooks.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
			r.Header.Set(webhooks.HeaderSignature, webhooks.StandardSignature(secret, id, at.Unix(), []byte(limitsAnswer)))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, quiet(r))
			if rec.Code != c.status {
				t.Errorf("status %d %s, want %d", rec.Code, rec.Body, c.status)
			}
			if (len(calls) > 0) != c.wantStore {
				t.Errorf("store calls %q, want some: %v", calls, c.wantStore)
			}
		})
	}
}

// TestProviderWebhookUnknownProviderLogsBounded: a POST to /webhooks/ and
// 100 KB of provider is the 404 of an unknown provider, in one log line
// that carries the path as logging.Bounded renders it.
func TestProviderWebhookUnknownProviderLogsBounded(t *testing.T) {
	var applied int
	h := api.NewProviderWebhook(api.ProviderWebhook{
		Screening: &apitest.ScreeningApplier{
			ProvidesFn: func(p string) bool { return p == checks.ProviderOpenSanctions },
			ApplyFn:    func(context.Context, string, string, screening.Answer) (bool, error) { applied++; return true, nil },
		},
		Clock: domain.FixedClock(at),
	})
	path := "/webhooks/" + strings.Repeat("p", 100<<10)
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(limitsAnswer))
	var out bytes.Buffer
	r = r.WithContext(logging.WithLogger(r.Context(), slog.New(slog.NewJSONHandler(&out, nil))))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if want := `{"error":{"code":"not_found","message":"No such provider."}}` + "\n"; rec.Code != 404 || rec.Body.String() != want {
		t.Errorf("answer %d %s, want 404 %s", rec.Code, rec.Body, want)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || len(lines[0]) > maxRefusalLine {
		t.Fatalf("%d lines, the first %d bytes:\n%.400s", len(lines), len(lines[0]), out.String())
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatal(err)
	}
	if line["msg"] != "request refused" || line["path"] != logging.Bounded(path) || line["code"] != domain.ECodeNotFound || line["status"] != float64(404) {
		t.Errorf("line %s", lines[0])
	}
	if applied != 0 {
		t.Errorf("Apply called %d times", applied)
	}
}

// FuzzProviderWebhookHeaders posts the provider webhook any three header
// values, either as sent or signed (the timestamp then now and a valid
// signature added to the others). The answer is 400 bad_request exactly
// when an independent statement of the limits says a header is over its
// limit or the id is not printable ASCII; only a signed request within
// the limits reaches the screening service, with its id; a refusal is one
// log line of bounded size whatever the headers' size.
func FuzzProviderWebhookHeaders(f *testing.F) {
	secret, err := webhooks.ParseSecret("whsec_c2VjcmV0")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id, timestamp, signatures string, signed bool) {
		if signed {
			timestamp = strconv.FormatInt(at.Unix(), 10)
			signatures = strings.TrimSpace(signatures + " " + webhooks.StandardSignature(secret, id, at.Unix(), []byte(limitsAnswer)))
		}
		x := postWebhook(t, secret, id, timestamp, signatures)
		present := id != "" && timestamp != "" && signatures != ""
		malformed := present && (len(id) > 256 || len(timestamp) > 32 || len(signatures) > 4096 || !printableASCII(id))
		switch {
		case malformed:
			if x.status != 400 || x.body.Error.Code != domain.ECodeBadRequest {
				t.Fatalf("malformed headers answered %d %+v, want 400 bad_request", x.status, x.body)
			}
		case signed && present:
			if x.status != 200 || len(x.applied) != 1 || x.applied[0] != id {
				t.Fatalf("a signed webhook within the limits answered %d %+v, applied %q", x.status, x.body, x.applied)
			}
		default:
			if x.status != 401 || x.body.Error.Code != domain.ECodeUnauthorized {
				t.Fatalf("answered %d %+v, want 401 unauthorized", x.status, x.body)
			}
		}
		if x.status != 200 {
			if len(x.applied) != 0 {
				t.Fatalf("a refused webhook was applied: %q", x.applied)
			}
			if len(x.log) != 1 || len(x.log[0]) > maxRefusalLine {
				t.Fatalf("%d log lines, the first of %d bytes, want 1 of at most %d", len(x.log), len(x.log[0]), maxRefusalLine)
			}
		}
	})
}

// printableASCII: every byte from 0x20 to 0x7E.
func printableASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e })
}
