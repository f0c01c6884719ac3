// Package screening applies a screening provider's later answer for a check:
// it reads the check and its entity, scores the entity afresh and writes
// both, with the webhook's receipt, in one conditional write. An answer that
// turns a monitored entity with no active review to hit or needs_review
// opens a review in that write (monitoring.go).
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
	// No codes. want is the entity's ChecksCount.
	EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	// No codes.
	ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	// No codes. want is the entity's ReviewsCount.
	EntityReviews(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error)
	// No codes: whether the webhook id was applied (and is still
	// remembered) at.
	WebhookSeen(ctx context.Context, provider, webhookID string, at time.Time) (bool, error)
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
	// A replay is answered before anything is reserved or kept: its receipt
	// (checked again in the write) is read first.
	if seen, err := s.Store.WebhookSeen(ctx, provider, webhookID, s.Clock.Now()); err != nil {
		return false, fmt.Errorf("screening: webhook %s: %w", webhookID, err)
	} else if seen {
		return false, nil
	}
	// The id a later answer is written as is reserved once, whatever the
	// retries: a retry keeps the same id, so the same evidence key.
	var reserved int64
	for attempt := 0; ; attempt++ {
		applied, err := s.apply(ctx, provider, reader, webhookID, a, accountID, checkID, &reserved)
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
func (s *Service) apply(ctx context.Context, provider string, reader Reader, webhookID string, a Answer, accountID, checkID int64, reserved *int64) (bool, error) {
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
	checks.CarryQuery(c.Result, result)
	// An answer for a check already complete is a check of its own, whose
	// id the evidence is kept under.
	target := checkID
	if c.Status != domain.CheckPending && c.Status != domain.CheckRunning {
		// Complete or failed: its answer (or failure) and evidence stay.
		if *reserved == 0 {
			ids, err := s.Store.ReserveCheckIDs(ctx, accountID, 1)
			if err != nil {
				return false, fmt.Errorf("screening: reserve a check for a later answer to check %d: %w", c.ID, err)
			}
			*reserved = ids[0]
		}
		target = *reserved
	}
	var ev *domain.Evidence
	if a.Evidence != nil {
		e := *a.Evidence
		e.AccountID, e.CheckID = accountID, target
		// Before the transaction (S3 cannot join it). A failed write fails
		// the webhook: the provider sends it again, and the retry writes
		// the same key with the same bytes.
		if err := checks.KeepEvidence(ctx, s.Blobs, &e); err != nil {
			return false, fmt.Errorf("screening: %w", err)
		}
		ev = &e
		result["evidence"] = e.ResultMap()
	}
	now := s.Clock.Now()
	u := domain.ScreeningUpdate{
		Provider: provider, WebhookID: webhookID, Reference: a.Reference,
		Check: c, Entity: e, Evidence: ev,
		Result:          checks.Sanitize(domain.CheckOrganizationScreening, result),
		ProviderStatus:  "200",
		Answered:        res.Status,
		SanctionsStatus: res.Status,
		Score:           checks.ScoreAfterScreening(e),
		At:              now,
		ReceiptTTL:      ReceiptTTL,
	}
	if c.SubjectType != nil {
		// A party's answer: the entity's status and score are its own
		// screening's.
		u.SanctionsStatus, u.Score = e.SanctionsStatus, nil
	}
	if target != checkID {
		if u.New, err = s.rescreen(ctx, c, e, target, u.Result, now); err != nil {
			return false, err
		}
	}
	// Read on each attempt with the entity: a review opened or finished
	// meanwhile fails the write (the dossier's revision), and the retry
	// decides again.
	if u.Opens, err = s.opening(ctx, u); err != nil {
		return false, err
	}
	applied, err := s.Store.ApplyScreening(ctx, u)
	if err != nil {
		return false, fmt.Errorf("screening: apply webhook %s to check %d: %w", webhookID, checkID, err)
	}
	return applied, nil
}

// rescreen is the new check a later answer for the complete check c is
// written as (a re-screen): c keeps the answer, and the evidence, that an
// operator may have decided on. Its changes are against the previous
// complete screening of the entity, as a re-check's are.
func (s *Service) rescreen(ctx context.Context, c domain.Check, e domain.Entity, id int64, result map[string]any, now time.Time) (*domain.Check, error) {
	earlier, err := s.Store.EntityChecks(ctx, c.AccountID, e.ID, e.ChecksCount)
	if err != nil {
		return nil, fmt.Errorf("screening: checks of entity %d: %w", e.ID, err)
	}
	n := domain.Check{AccountID: c.AccountID, ID: id, EntityID: c.EntityID, Type: c.Type, ProviderKey: c.ProviderKey,
		Status: domain.CheckCompleted, ProviderStatus: "200", TriggeringReason: domain.TriggerProviderUpdate,
		SubjectType: c.SubjectType, SubjectID: c.SubjectID, SubjectDisplayName: c.SubjectDisplayName,
		Result: result, CheckedAt: &now, CreatedAt: now, UpdatedAt: now}
	n = checks.WithChanges(n, earlier, e.DismissedMatches)
	return &n, nil
}
