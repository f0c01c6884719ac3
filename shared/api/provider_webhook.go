package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
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

// ScreeningStore is what the webhook needs from the store.
type ScreeningStore interface {
	// not_found: no such check in the account.
	Check(ctx context.Context, accountID, id int64) (domain.Check, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// No codes; domain.ErrStale if the check or the entity changed since read;
	// applied false for a webhook id seen before.
	ApplyScreening(ctx context.Context, u domain.ScreeningUpdate) (bool, error)
}

// ScreeningReader reads a provider's answer as check results.
type ScreeningReader interface {
	Read(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult
}

// ProviderWebhook is what POST /webhooks/{provider} is built from.
type ProviderWebhook struct {
	// Secrets by provider key. A provider with none configured is refused:
	// the webhook fails closed.
	Secrets map[string][]webhooks.Secret
	// Readers by provider key: the providers that may post results.
	Readers   map[string]ScreeningReader
	Store     ScreeningStore
	Now       func() time.Time
	Tolerance time.Duration // webhooks.DefaultTolerance when zero
}

// receiptTTL is how long a webhook id is remembered: well beyond the
// timestamp tolerance, so a replay can never get in once it is forgotten.
const receiptTTL = 7 * 24 * time.Hour

// maxWebhookBody caps an inbound webhook.
const maxWebhookBody = 1 << 20

// NewProviderWebhook serves POST /webhooks/{provider}. It has no API key:
// each request must carry a valid Standard Webhooks signature.
func NewProviderWebhook(h ProviderWebhook) http.Handler {
	return endpointNoAuth(deploy.MustRoute("provider-webhook"), h.serve)
}

func (h ProviderWebhook) serve(w http.ResponseWriter, r *http.Request, params map[string]string) error {
	provider := params["provider"]
	reader, known := h.Readers[provider]
	if !known {
		return domain.Errorf(domain.ECodeNotFound, "No such provider.")
	}
	log := logging.From(r.Context()).With("provider", provider, "webhook_id", r.Header.Get(webhooks.HeaderID))
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil || len(body) > maxWebhookBody {
		return domain.Errorf(domain.ECodeTooLarge, "The webhook body is larger than %d bytes.", maxWebhookBody)
	}
	tolerance := h.Tolerance
	if tolerance == 0 {
		tolerance = webhooks.DefaultTolerance
	}
	secrets := h.Secrets[provider]
	err = webhooks.VerifyStandard(secrets, r.Header.Get(webhooks.HeaderID), r.Header.Get(webhooks.HeaderTimestamp),
		r.Header.Get(webhooks.HeaderSignature), body, h.now(), tolerance)
	if err != nil {
		// One line per refused webhook, with its reason: the answer is
		// written here, not returned to writeError, whose "request refused"
		// line would only repeat it without the reason. Anyone can post a
		// forged webhook; each must cost one line, not three.
		refusal := domain.Errorf(domain.ECodeUnauthorized, "The webhook signature could not be verified: %v.", err)
		if errors.Is(err, webhooks.ErrNoSecret) {
			log.Error("provider webhook refused: no signing secret is configured", "status", http.StatusUnauthorized)
		} else {
			log.Warn("provider webhook refused", "reason", err.Error(), "status", http.StatusUnauthorized)
		}
		writeJSON(w, http.StatusUnauthorized, ErrorBody{Error: ErrorDetail{Code: domain.ECodeUnauthorized, Message: domain.ErrorMessage(refusal)}})
		return nil
	}

	var ev ScreeningEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return domain.Errorf(domain.ECodeBadRequest, "The webhook body is not valid JSON.")
	}
	if ev.Type != ScreeningEventCompleted {
		// Tolerate event types added later: acknowledged, nothing changes.
		log.Info("provider webhook ignored", "type", ev.Type)
		writeJSON(w, http.StatusOK, map[string]string{"status": "ignored"})
		return nil
	}
	if ev.Data.Reference == "" || ev.Data.Response == nil {
		return domain.Invalid("data", "must carry a reference and a response")
	}
	accountID, checkID, ok := checks.ParseScreeningReference(ev.Data.Reference)
	if !ok {
		return errUnknownReference
	}
	log = log.With("account_id", accountID, "check_id", checkID)
	ctx := context.WithoutCancel(r.Context())
	for attempt := 0; ; attempt++ {
		applied, err := h.apply(ctx, provider, reader, r.Header.Get(webhooks.HeaderID), ev, accountID, checkID)
		if errors.Is(err, domain.ErrStale) && attempt < 3 {
			continue // the check or entity changed between read and write
		}
		if err != nil {
			return err
		}
		status := "applied"
		if !applied {
			status = "duplicate"
		}
		log.Info("provider webhook", "status", status)
		writeJSON(w, http.StatusOK, map[string]string{"status": status})
		return nil
	}
}

var errUnknownReference = domain.Errorf(domain.ECodeNotFound, "No check has this reference.")

func (h ProviderWebhook) apply(ctx context.Context, provider string, reader ScreeningReader, webhookID string, ev ScreeningEvent, accountID, checkID int64) (bool, error) {
	c, err := h.Store.Check(ctx, accountID, checkID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return false, errUnknownReference
	}
	if err != nil {
		return false, err
	}
	if c.Type != domain.CheckOrganizationScreening || c.ProviderKey != provider {
		return false, errUnknownReference
	}
	e, err := h.Store.Entity(ctx, accountID, c.EntityID)
	if err != nil {
		return false, fmt.Errorf("entity of check %d: %w", checkID, err)
	}
	if ev.Data.Response.Status != 0 && ev.Data.Response.Status != http.StatusOK {
		return false, domain.Invalid("data", fmt.Sprintf("response status %d carries no results", ev.Data.Response.Status))
	}
	res := reader.Read(ev.Data.Reference, *ev.Data.Response)
	if ev.Data.Dataset != "" {
		res.Dataset = ev.Data.Dataset
	}
	return h.Store.ApplyScreening(ctx, domain.ScreeningUpdate{
		Provider: provider, WebhookID: webhookID, Reference: ev.Data.Reference,
		Check: c, Entity: e,
		Result:          checks.Sanitize(domain.CheckOrganizationScreening, checks.ScreeningResultMap(res)),
		ProviderStatus:  "200",
		SanctionsStatus: res.Status,
		Score:           checks.ScoreAfterScreening(e),
		At:              domain.Now(),
		ReceiptTTL:      receiptTTL,
	})
}

func (h ProviderWebhook) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}
