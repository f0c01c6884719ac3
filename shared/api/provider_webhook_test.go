package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// TestProviderWebhook: the handler verifies, parses, hands the answer to
// the screening service and maps its answer, exactly.
func TestProviderWebhook(t *testing.T) {
	secrets, err := webhooks.ParseSecrets("whsec_c2VjcmV0")
	if err != nil {
		t.Fatal(err)
	}
	const (
		provider = checks.ProviderOpenSanctions
		ref      = "evs-7-42"
		answer   = `{"type":"screening.completed","data":{"reference":"evs-7-42","dataset":"sanctions","response":{"status":200,"results":[],"total":{"value":0}}}}`
	)
	wantAnswer := screening.Answer{Reference: ref, Dataset: "sanctions", Response: checks.YenteQueryResponse{Status: 200, Results: []checks.ScreeningMatch{}}}
	applyCall := fmt.Sprintf("Apply(%s,msg_1,%+v)", provider, wantAnswer)
	tests := []struct {
		name       string
		provider   string
		body       string
		badSig     bool
		applied    bool
		applyErr   error
		wantStatus int
		wantBody   string
		wantCalls  []string
	}{
		{name: "applied", body: answer, applied: true,
			wantStatus: 200, wantBody: `{"status":"applied"}`, wantCalls: []string{applyCall}},
		{name: "duplicate", body: answer,
			wantStatus: 200, wantBody: `{"status":"duplicate"}`, wantCalls: []string{applyCall}},
		{name: "unknown provider", provider: "nobody", body: answer,
			wantStatus: 404, wantBody: `{"error":{"code":"not_found","message":"No such provider."}}`},
		{name: "bad signature", body: answer, badSig: true,
			wantStatus: 401, wantBody: `{"error":{"code":"unauthorized","message":"The webhook signature could not be verified: no signature matches."}}`},
		{name: "other event type: ignored", body: `{"type":"screening.started"}`,
			wantStatus: 200, wantBody: `{"status":"ignored"}`},
		{name: "not JSON", body: `{"type":`,
			wantStatus: 400, wantBody: `{"error":{"code":"bad_request","message":"The webhook body is not valid JSON."}}`},
		{name: "no response", body: `{"type":"screening.completed","data":{"reference":"evs-7-42"}}`,
			wantStatus: 422, wantBody: `{"errors":{"data":["must carry a reference and a response"]}}`},
		{name: "unknown reference", body: answer, applyErr: screening.UnknownReference(),
			wantStatus: 404, wantBody: `{"error":{"code":"not_found","message":"No check has this reference."}}`, wantCalls: []string{applyCall}},
		{name: "answer without results", body: answer, applyErr: domain.Invalid("data", "response status 500 carries no results"),
			wantStatus: 422, wantBody: `{"errors":{"data":["response status 500 carries no results"]}}`, wantCalls: []string{applyCall}},
		{name: "stale on every attempt", body: answer, applyErr: fmt.Errorf("screening: stale: %w", domain.ErrStale),
			wantStatus: 500, wantBody: `{"error":{"code":"internal_error","message":"An internal error occurred."}}`, wantCalls: []string{applyCall}},
		{name: "store fault", body: answer, applyErr: errors.New("boom"),
			wantStatus: 500, wantBody: `{"error":{"code":"internal_error","message":"An internal error occurred."}}`, wantCalls: []string{applyCall}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			svc := &apitest.ScreeningApplier{
				ProvidesFn: func(p string) bool { return p == provider },
				ApplyFn: func(_ context.Context, p, webhookID string, a screening.Answer) (bool, error) {
					// The evidence is the delivery as received: the raw body,
					// our path, the 200 we answer.
					want := domain.NewEvidence(provider, http.MethodPost, "/webhooks/"+provider, http.StatusOK, []byte(tt.body), at)
					if !reflect.DeepEqual(a.Evidence, want) {
						t.Errorf("evidence %+v\nwant     %+v", a.Evidence, want)
					}
					a.Evidence = nil
					calls = append(calls, fmt.Sprintf("Apply(%s,%s,%+v)", p, webhookID, a))
					return tt.applied, tt.applyErr
				},
			}
			h := api.NewProviderWebhook(api.ProviderWebhook{
				Secrets:   map[string][]webhooks.Secret{provider: secrets},
				Screening: svc,
				Clock:     domain.FixedClock(at),
			})
			if tt.provider == "" {
				tt.provider = provider
			}
			r := httptest.NewRequest(http.MethodPost, "/webhooks/"+tt.provider, strings.NewReader(tt.body))
			sig := webhooks.StandardSignature(secrets[0], "msg_1", at.Unix(), []byte(tt.body))
			if tt.badSig {
				sig = webhooks.StandardSignature(secrets[0], "msg_2", at.Unix(), []byte(tt.body))
			}
			r.Header.Set(webhooks.HeaderID, "msg_1")
			r.Header.Set(webhooks.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
			r.Header.Set(webhooks.HeaderSignature, sig)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, quiet(r))
			if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody+"\n" {
				t.Errorf("answer %d %s\nwant   %d %s", rec.Code, rec.Body, tt.wantStatus, tt.wantBody)
			}
			if !reflect.DeepEqual(calls, tt.wantCalls) {
				t.Errorf("calls = %q\nwant    %q", calls, tt.wantCalls)
			}
		})
	}
}
