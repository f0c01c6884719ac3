package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// ScreeningEvent is the body of a screening provider's webhook: its answer
// to one query of an earlier match request, in yente's own per-query shape,
// named by the reference we gave the query (the check it is for).
type ScreeningEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		Reference string                     `json:"reference"`
		Dataset   string                     `json:"dataset"`
		Response  *checks.YenteQueryResponse `json:"response"`
	} `json:"data"`
}

// ScreeningEventCompleted is the event type that carries results.
const ScreeningEventCompleted = "screening.completed"

// ScreeningApplier applies a provider's answer (screening.Service).
type ScreeningApplier interface {
	// Provides reports whether provider may post answers.
	Provides(provider string) bool
	// not_found: the reference names no check of the provider;
	// validation_failed on data: the answer carries no results. Applied
	// false for a webhook id applied before.
	Apply(ctx context.Context, provider, webhookID string, a screening.Answer) (applied bool, err error)
}

// ProviderWebhook is what POST /webhooks/{provider} is built from. Every
// field but Tolerance is required.
type ProviderWebhook struct {
	// Secrets by provider key. A provider with none configured is refused:
	// the webhook fails closed.
	Secrets   map[string][]webhooks.Secret
	Screening ScreeningApplier
	Clock     domain.Clock
	Tolerance time.Duration // webhooks.DefaultTolerance when zero
}

// maxWebhookBody caps an inbound webhook.
const maxWebhookBody = 1 << 20

// NewProviderWebhook serves POST /webhooks/{provider}. It has no API key:
// each request must carry a valid Standard Webhooks signature.
func NewProviderWebhook(h ProviderWebhook) http.Handler {
	return endpointNoAuth(deploy.MustRoute("provider-webhook"), h.serve)
}

func (h ProviderWebhook) serve(w http.ResponseWriter, r *http.Request, params map[string]string) error {
	provider := params["provider"]
	if !h.Screening.Provides(provider) {
		return screening.UnknownProvider() // writeError logs the path bounded
	}
	webhookID, timestamp, signatures := r.Header.Get(webhooks.HeaderID), r.Header.Get(webhooks.HeaderTimestamp), r.Header.Get(webhooks.HeaderSignature)
	secrets := h.Secrets[provider]
	// The headers' limits hold before anything else is done with the
	// request: before the body is read, the signature computed, or the id
	// looked up (a long id would be a DynamoDB key too large: a 500 the
	// provider would retry forever).
	if err := webhooks.CheckStandardHeaders(secrets, webhookID, timestamp, signatures); err != nil {
		h.refuse(w, r, provider, webhookID, err)
		return nil
	}
	body, more, err := capped.Read(r.Body, maxWebhookBody)
	if err != nil || more {
		return domain.Errorf(domain.ECodeTooLarge, "The webhook body is larger than %d bytes.", maxWebhookBody)
	}
	tolerance := h.Tolerance
	if tolerance == 0 {
		tolerance = webhooks.DefaultTolerance
	}
	if err := webhooks.VerifyStandard(secrets, webhookID, timestamp, signatures, body, h.Clock.Now(), tolerance); err != nil {
		h.refuse(w, r, provider, webhookID, err)
		return nil
	}
	// Verified, so within MaxIDBytes of printable ASCII: logged as it is.
	log := logging.From(r.Context()).With("provider", provider, "webhook_id", webhookID)

	var ev ScreeningEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return domain.Errorf(domain.ECodeBadRequest, "The webhook body is not valid JSON.")
	}
	if ev.Type != ScreeningEventCompleted {
		// Tolerate event types added later: acknowledged, nothing changes.
		log.Info("provider webhook ignored", "type", logging.Bounded(ev.Type))
		writeJSON(w, http.StatusOK, map[string]string{"status": "ignored"})
		return nil
	}
	if ev.Data.Reference == "" || ev.Data.Response == nil {
		return domain.Invalid("data", "must carry a reference and a response")
	}
	// Once verified, the answer is applied even if the provider hangs up:
	// it will not necessarily send it again.
	applied, err := h.Screening.Apply(context.WithoutCancel(r.Context()), provider, webhookID,
		screening.Answer{Reference: ev.Data.Reference, Dataset: ev.Data.Dataset, Response: *ev.Data.Response,
			// The delivery as received: our path (no query), the 200 we answer.
			Evidence: domain.NewEvidence(provider, http.MethodPost, r.URL.Path, http.StatusOK, body, h.Clock.Now())})
	if err != nil {
		return err
	}
	status := "applied"
	if !applied {
		status = "duplicate"
	}
	// Applied or duplicate, the reference named a check of ours.
	acct, check, _ := checks.ParseScreeningReference(ev.Data.Reference)
	log.Info("provider webhook", "status", status, "account_id", acct, "check_id", check)
	writeJSON(w, http.StatusOK, map[string]string{"status": status})
	return nil
}

// refuse answers a webhook refused by webhooks.CheckStandardHeaders or
// VerifyStandard: 400 bad_request for a header over its limit (or an id
// that is not printable ASCII), 401 unauthorized for the rest. It writes
// one log line with the reason, and the id as logging.Bounded renders it:
// anyone can post a forged webhook, with any headers; each must cost one
// bounded line, not three (the answer is written here, not returned to
// writeError, whose "request refused" line would only repeat it).
func (h ProviderWebhook) refuse(w http.ResponseWriter, r *http.Request, provider, webhookID string, err error) {
	log := logging.From(r.Context()).With("provider", provider, "webhook_id", logging.Bounded(webhookID))
	refusal := domain.Errorf(domain.ECodeUnauthorized, "The webhook signature could not be verified: %v.", err)
	if errors.Is(err, webhooks.ErrMalformedHeader) {
		refusal = domain.Errorf(domain.ECodeBadRequest, "The webhook headers are malformed: %v.", err)
	}
	code := domain.ErrorCode(refusal)
	status := StatusOf(code)
	if errors.Is(err, webhooks.ErrNoSecret) {
		log.Error("provider webhook refused: no signing secret is configured", "status", status)
	} else {
		log.Warn("provider webhook refused", "reason", err.Error(), "status", status)
	}
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: domain.ErrorMessage(refusal)}})
}
