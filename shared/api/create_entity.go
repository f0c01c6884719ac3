package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Limits of POST /api/v1/entities.
const (
	MaxCreateBody = 1 << 20 // 1 MiB
	// claimLease: an attempt that stops answering frees its claim on the
	// registration number after this, as it frees its key.
	claimLease = idempotencyLock
)

// EntityCreator is what creating an entity needs from the store.
type EntityCreator interface {
	// not_found: no such account. Its settings (the threshold of
	// beneficial ownership) steer the intake.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// not_found: the account has not configured the country.
	CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	// validation_failed on registration_number: taken, or held by another create.
	ClaimRegistration(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error
	// No codes.
	ReleaseRegistration(ctx context.Context, accountID int64, country, number, token string) error
	// No codes.
	ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	// No codes.
	ReservePartyIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	// validation_failed on registration_number: taken; conflict: another request
	// took the Idempotency-Key over; service_unavailable: the outcome is unknown.
	CommitEntity(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error)
	// No codes: a key held by another request is reported by the record returned.
	BeginIdempotent(ctx context.Context, accountID int64, key, requestHash string, now time.Time, ttl, lock time.Duration) (domain.IdempotencyRecord, bool, error)
	// No codes.
	CompleteIdempotent(ctx context.Context, accountID int64, key, requestHash string, status int, body string) error
	// not_found: no live record of the key.
	IdempotencyRecord(ctx context.Context, accountID int64, key string, now time.Time) (domain.IdempotencyRecord, error)
	// No codes.
	ReleaseIdempotent(ctx context.Context, accountID int64, key, requestHash string) error
}

// IntakeRunner runs a new entity's intake checks.
type IntakeRunner interface {
	Intake(ctx context.Context, in checks.IntakeInput) domain.EntityDetail
}

// CreateEntity is what POST /api/v1/entities is built from. Every field is
// required.
type CreateEntity struct {
	Store     EntityCreator
	Intake    IntakeRunner
	Countries *country.Catalogue
	Clock     domain.Clock
}

// NewCreateEntity serves POST /api/v1/entities.
func NewCreateEntity(c CreateEntity) http.Handler {
	return endpoint(deploy.MustRoute("create-entity"), c.serve)
}

// response is an answer kept for an Idempotency-Key replay.
type response struct {
	status   int
	body     []byte
	location string
	// stored: the answer was stored with the entity's commit; unknown: the
	// commit's outcome is unknown, so the key is left to its lock;
	// contested: the number or the key was taken by another attempt, which
	// may be an earlier attempt of this very request.
	stored, unknown, contested bool
}

func (c CreateEntity) serve(w http.ResponseWriter, r *http.Request, p auth.Principal, _ map[string]string) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, more, err := capped.Read(r.Body, MaxCreateBody)
	if err != nil {
		return domain.Errorf(domain.ECodeBadRequest, "The request body could not be read.")
	}
	if more {
		return domain.Errorf(domain.ECodeTooLarge, "The request body is larger than %d bytes.", MaxCreateBody)
	}
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		return c.serveIdempotent(w, r, p, body, key)
	}
	writeResponse(w, c.create(r, p, body, nil), false)
	return nil
}

// cleanupTimeout bounds each of the two writes a failed create makes after
// its answer is known (release the number, release the key).
const cleanupTimeout = time.Second

// create validates, claims the registration number, runs the intake and
// commits the entity. Once providers are called the work runs to the end
// (within the request's budget) even if the caller goes away, so that
// nothing they answered is lost.
func (c CreateEntity) create(r *http.Request, p auth.Principal, body []byte, idem *idempotent) response {
	in, err := c.parse(r.Context(), p.AccountID, body)
	if err != nil {
		return failure(r, err)
	}
	ctx := context.WithoutCancel(r.Context())
	if deadline, ok := r.Context().Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	// The number is claimed before any provider is paid for: a concurrent
	// twin is refused here, as is a number already taken.
	token := claimToken(p.AccountID, idem)
	if err := c.Store.ClaimRegistration(ctx, p.AccountID, in.CountryCode, in.RegistrationNumber, token, c.Clock.Now(), claimLease); err != nil {
		return failure(r, err)
	}
	resp := c.intakeAndCommit(ctx, r, in, token, idem)
	if resp.status != http.StatusCreated && !resp.unknown {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if err := c.Store.ReleaseRegistration(rctx, p.AccountID, in.CountryCode, in.RegistrationNumber, token); err != nil {
			// It lapses with its lease.
			logging.From(r.Context()).Error("registration claim not released", "error", err.Error())
		}
	}
	return resp
}

func (c CreateEntity) intakeAndCommit(ctx context.Context, r *http.Request, in checks.IntakeInput, token string, idem *idempotent) response {
	var err error
	if in.CheckIDs, err = c.Store.ReserveCheckIDs(ctx, in.AccountID, len(in.Config.IntakeChecks)); err != nil {
		return failure(r, err)
	}
	in.Reserve = c.Store // the register's parties, its company partners' lookups
	acct, err := c.Store.Account(ctx, in.AccountID)
	if err != nil {
		return failure(r, fmt.Errorf("create entity: the account's settings: %w", err))
	}
	in.OwnershipThresholdPercent = acct.Settings.OwnershipThreshold()
	d := c.Intake.Intake(ctx, in)
	opts := domain.CommitOptions{ClaimToken: token}
	if idem != nil {
		opts.Idempotency = &domain.IdempotentAnswer{Key: idem.key, RequestHash: idem.hash, Status: http.StatusCreated,
			Render: func(d domain.EntityDetail) ([]byte, error) { return marshalBody(EntityView(d)), nil }}
	}
	created, err := c.Store.CommitEntity(ctx, d, opts)
	if err != nil {
		return failure(r, err)
	}
	logging.From(r.Context()).Info("entity created", "entity_id", created.Entity.ID, "country", in.CountryCode,
		"registration_status", created.Entity.RegistrationStatus, "sanctions_status", created.Entity.SanctionsStatus)
	return response{status: http.StatusCreated, body: marshalBody(EntityView(created)), location: entityPath(created.Entity.ID), stored: idem != nil}
}

// failure is the answer to a create that failed with err.
func failure(r *http.Request, err error) response {
	status, v := errorResponse(r, err)
	code := domain.ErrorCode(err)
	return response{status: status, body: marshalBody(v), unknown: code == domain.ECodeUnavailable,
		contested: code == domain.ECodeConflict || domain.RegistrationTaken(err)}
}

// claimToken names a create's claim on its registration number. A request
// with an Idempotency-Key has the key's, so that its retry takes over its
// own claim; any other has one of its own.
func claimToken(accountID int64, idem *idempotent) string {
	if idem == nil {
		b := make([]byte, 16)
		rand.Read(b)
		return "req:" + hex.EncodeToString(b)
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\n%s", accountID, idem.key)))
	return "key:" + hex.EncodeToString(sum[:16])
}

func entityPath(id int64) string { return deploy.BasePath + "/entities/" + strconv.FormatInt(id, 10) }

func writeResponse(w http.ResponseWriter, resp response, replayed bool) {
	if resp.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
	}
	if resp.location != "" {
		w.Header().Set("Location", resp.location)
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSONBytes(w, resp.status, resp.body)
}
