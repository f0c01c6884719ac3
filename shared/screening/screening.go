// Package screening applies a screening provider's later answer for a check:
// it reads the check and its entity, scores the entity afresh and writes
// both, with the webhook's receipt, in one conditional write.
package screening

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Store is what applying an answer needs from the store.
type Store interface {
	// not_found: no such check in the account.
	Check(ctx context.Context, accountID, id int64) (domain.Check, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// No codes; domain.ErrStale if the check or the entity changed since read;
	// applied false for a webhook id seen before.
	ApplyScreening(ctx context.Context, u domain.ScreeningUpdate) (bool, error)
}

// Reader reads a provider's answer as check results.
type Reader interface {
	Read(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult
}

// Answer is a provider's answer to one query of an earlier match request,
// named by the reference we gave the query (checks.ScreeningReference).
type Answer struct {
	Reference string
	// Dataset, when set, names the dataset screened instead of the reader's.
	Dataset  string
	Response checks.YenteQueryResponse
	// Evidence is the webhook's raw body and delivery, kept as the check's
	// evidence (nil keeps none).
	Evidence *domain.Evidence
}

// Service applies answers. Every field is required but Blobs.
type Service struct {
	Store Store
	// Readers by provider key: the providers that may post results.
	Readers map[string]Reader
	Clock   domain.Clock
	// Blobs keeps a webhook body too large for its evidence item
	// (checks.KeepEvidence); nil keeps none of them (stored false, with
	// why).
	Blobs checks.BlobPutter
}

// ReceiptTTL is how long a webhook id is remembered: well beyond any
// webhook timestamp tolerance, so a replay can never get in once it is
// forgotten.
const ReceiptTTL = 7 * 24 * time.Hour

// staleRetries is how many times an answer is applied again when the check
// or the entity changed between its read and its write (a concurrent
// decision or a twin webhook): each retry reads them afresh.
const staleRetries = 3

// UnknownProvider refuses an answer from a provider that may post none.
func UnknownProvider() error { return domain.Errorf(domain.ECodeNotFound, "No such provider.") }

// UnknownReference refuses an answer whose reference names no screening
// check of the provider.
func UnknownReference() error {
	return domain.Errorf(domain.ECodeNotFound, "No check has this reference.")
}

// Provides reports whether provider may post answers.
func (s *Service) Provides(provider string) bool {
	_, ok := s.Readers[provider]
	return ok
}

// Apply applies provider's answer a, brought by the webhook webhookID. It is
// false, with no error, for a webhook id applied before: nothing changes.
//
// Codes: not_found: UnknownProvider() for a provider that may post no
// answers, UnknownReference() when the reference names no organisation
// screening check of the provider;
// validation_failed on data when the answer's status carries no results.
// Any other error, including a check that kept changing through every
// retry (domain.ErrStale), is a fault.
func (s *Service) Apply(ctx context.Context, provider, webhookID string, a Answer) (bool, error) {
	reader, ok := s.Readers[provider]
	if !ok {
		return false, UnknownProvider()
	}
	accountID, checkID, ok := checks.ParseScreeningReference(a.Reference)
	if !ok {
		return false, UnknownReference()
	}
	for attempt := 0; ; attempt++ {
		applied, err := s.apply(ctx, provider, reader, webhookID, a, accountID, checkID)
		if errors.Is(err, domain.ErrStale) && attempt < staleRetries {
			continue
		}
		if errors.Is(err, domain.ErrStale) {
			return false, fmt.Errorf("screening: stale on each of %d attempts: %w", attempt+1, err)
		}
		return applied, err
	}
}

// apply is one read-compute-write attempt.
func (s *Service) apply(ctx context.Context, provider string, reader Reader, webhookID string, a Answer, accountID, checkID int64) (bool, error) {
	c, err := s.Store.Check(ctx, accountID, checkID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return false, UnknownReference()
	}
	if err != nil {
		return false, fmt.Errorf("screening: check %d: %w", checkID, err)
	}
	if c.Type != domain.CheckOrganizationScreening || c.ProviderKey != provider {
		return false, UnknownReference()
	}
	e, err := s.Store.Entity(ctx, accountID, c.EntityID)
	if err != nil {
		return false, fmt.Errorf("screening: entity of check %d: %w", checkID, err)
	}
	// Checked after the reads, so that an unknown reference is a 404
	// whatever the answer says.
	if a.Response.Status != 0 && a.Response.Status != http.StatusOK {
		return false, domain.Invalid("data", fmt.Sprintf("response status %d carries no results", a.Response.Status))
	}
	res := reader.Read(a.Reference, a.Response)
	if a.Dataset != "" {
		res.Dataset = a.Dataset
	}
	result := checks.ScreeningResultMap(res)
	var ev *domain.Evidence
	if a.Evidence != nil {
		e := *a.Evidence
		e.AccountID, e.CheckID = accountID, checkID
		// Before the transaction (S3 cannot join it). A failed write fails
		// the webhook: the provider sends it again, and the retry writes
		// the same key with the same bytes.
		if err := checks.KeepEvidence(ctx, s.Blobs, &e); err != nil {
			return false, fmt.Errorf("screening: %w", err)
		}
		ev = &e
		result["evidence"] = e.ResultMap()
	}
	applied, err := s.Store.ApplyScreening(ctx, domain.ScreeningUpdate{
		Provider: provider, WebhookID: webhookID, Reference: a.Reference,
		Check: c, Entity: e, Evidence: ev,
		Result:          checks.Sanitize(domain.CheckOrganizationScreening, result),
		ProviderStatus:  "200",
		SanctionsStatus: res.Status,
		Score:           checks.ScoreAfterScreening(e),
		At:              s.Clock.Now(),
		ReceiptTTL:      ReceiptTTL,
	})
	if err != nil {
		return false, fmt.Errorf("screening: apply webhook %s to check %d: %w", webhookID, checkID, err)
	}
	return applied, nil
}
