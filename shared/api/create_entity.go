package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Limits of POST /api/v1/entities.
const (
	MaxCreateBody  = 1 << 20 // 1 MiB
	IdempotencyTTL = 24 * time.Hour
	// idempotencyLock: an attempt that stops answering frees its key after
	// this, longer than any attempt can run (API Gateway gives up at 29 s).
	idempotencyLock = 30 * time.Second
	// claimLease: likewise for its claim on the registration number.
	claimLease         = idempotencyLock
	maxLegalNameLength = 300
)

// EntityCreator is what creating an entity needs from the store.
type EntityCreator interface {
	// not_found: the account has not configured the country.
	CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	// validation_failed on registration_number: taken, or held by another create.
	ClaimRegistration(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error
	// No codes.
	ReleaseRegistration(ctx context.Context, accountID int64, country, number, token string) error
	// No codes.
	ReserveCheckIDs(ctx context.Context, n int) ([]int64, error)
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

// createRequest is the body: {"entity": {...}}.
type createRequest struct {
	Entity *createFields `json:"entity"`
}

type createFields struct {
	RegistrationNumber json.RawMessage `json:"registration_number"`
	CountryCode        json.RawMessage `json:"country_code"`
	CountryID          json.RawMessage `json:"country_id"`
	LegalName          json.RawMessage `json:"legal_name"`
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

// idempotent is a request's Idempotency-Key, claimed.
type idempotent struct{ key, hash string }

func (c CreateEntity) serve(w http.ResponseWriter, r *http.Request, p auth.Principal, _ map[string]string) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxCreateBody+1))
	if err != nil {
		return domain.Errorf(domain.ECodeBadRequest, "The request body could not be read.")
	}
	if len(body) > MaxCreateBody {
		return domain.Errorf(domain.ECodeTooLarge, "The request body is larger than %d bytes.", MaxCreateBody)
	}

	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		resp := c.create(r, p, body, nil)
		writeResponse(w, resp, false)
		return nil
	}
	if !ValidIdempotencyKey(key) {
		return domain.Invalid("idempotency_key", fmt.Sprintf("must be 1 to %d bytes of UTF-8, not blank", MaxIdempotencyKeyBytes))
	}
	hash := requestHash(r, body)
	rec, claimed, err := c.Store.BeginIdempotent(r.Context(), p.AccountID, key, hash, c.Clock.Now(), IdempotencyTTL, idempotencyLock)
	if err != nil {
		return err
	}
	if !claimed {
		switch {
		case rec.RequestHash != hash:
			return domain.Invalid("idempotency_key", "was already used with a different request")
		case rec.State == domain.IdempotencyCompleted:
			logging.From(r.Context()).Info("idempotent replay", "status", rec.Status)
			writeResponse(w, response{status: rec.Status, body: []byte(rec.Body), location: locationOf(rec.Status, rec.Body)}, true)
			return nil
		default:
			w.Header().Set("Retry-After", "1")
			return domain.Errorf(domain.ECodeConflict, "A request with this Idempotency-Key is still being processed; retry shortly.")
		}
	}
	resp := c.create(r, p, body, &idempotent{key: key, hash: hash})
	if resp.contested {
		// An earlier attempt with this key whose answer was lost may have
		// committed meanwhile: its answer, not a refusal, is this one's.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), cleanupTimeout)
		rec, err := c.Store.IdempotencyRecord(ctx, p.AccountID, key, c.Clock.Now())
		cancel()
		if err == nil &&
			rec.State == domain.IdempotencyCompleted && rec.RequestHash == hash {
			logging.From(r.Context()).Info("idempotent replay of an earlier attempt", "status", rec.Status)
			writeResponse(w, response{status: rec.Status, body: []byte(rec.Body), location: locationOf(rec.Status, rec.Body)}, true)
			return nil
		}
	}
	// Answers that a retry would get again are kept (a 201 with its entity,
	// in the same transaction); faults are not, so a retry with the same key
	// runs again; an unknown outcome keeps the key until its lock lapses,
	// when a retry finds the 201 if there was one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), cleanupTimeout)
	defer cancel()
	switch {
	case resp.stored, resp.unknown:
	case resp.status == http.StatusConflict:
		// "Retry shortly" is no answer to keep: the key belongs to the
		// attempt that took it over.
	case resp.status < 500:
		err = c.Store.CompleteIdempotent(ctx, p.AccountID, key, hash, resp.status, string(resp.body))
	default:
		err = c.Store.ReleaseIdempotent(ctx, p.AccountID, key, hash)
	}
	if err != nil {
		logging.From(r.Context()).Error("idempotency record not updated", "error", err.Error())
	}
	writeResponse(w, resp, false)
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
	if in.CheckIDs, err = c.Store.ReserveCheckIDs(ctx, len(in.Config.IntakeChecks)); err != nil {
		return failure(r, err)
	}
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

// locationOf recovers a replayed 201's Location from its body.
func locationOf(status int, body string) string {
	if status != http.StatusCreated {
		return ""
	}
	var v struct {
		ID int64 `json:"id"`
	}
	if json.Unmarshal([]byte(body), &v) != nil || v.ID == 0 {
		return ""
	}
	return entityPath(v.ID)
}

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

// requestHash identifies a request for Idempotency-Key comparisons: the
// method, the path and the exact body.
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// requireJSON refuses bodies that do not say they are JSON.
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return domain.Errorf(domain.ECodeUnsupportedMedia, "Send the request body as JSON, with Content-Type: application/json.")
	}
	return nil
}

// parse reads and validates the request. Country errors come first: a
// registration number can only be checked against its country's rule.
func (c CreateEntity) parse(ctx context.Context, accountID int64, body []byte) (checks.IntakeInput, error) {
	var req createRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return checks.IntakeInput{}, domain.Invalid("entity", "must be an object")
		case errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return checks.IntakeInput{}, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
		default:
			return checks.IntakeInput{}, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
		}
	}
	if dec.More() {
		return checks.IntakeInput{}, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
	}
	if key := duplicateKey(body); key != "" {
		// The last one would win silently: a body that says two things
		// is refused rather than guessed at.
		return checks.IntakeInput{}, domain.Errorf(domain.ECodeBadRequest, "The request body names %q twice in one object.", key)
	}
	if req.Entity == nil {
		return checks.IntakeInput{}, domain.Invalid("entity", "is required")
	}
	f := req.Entity
	fields := map[string][]string{}
	add := func(field, msg string) { fields[field] = append(fields[field], msg) }

	number, ok := jsonString(f.RegistrationNumber)
	number = domain.NormalizeRegistration(number)
	switch {
	case !ok:
		add("registration_number", "must be a string")
	case number == "":
		add("registration_number", "can't be blank")
	case domain.RegistrationTextProblem(number) != "":
		add("registration_number", domain.RegistrationTextProblem(number))
	}
	legalName, ok := jsonString(f.LegalName)
	legalName = strings.TrimSpace(legalName)
	if !ok {
		add("legal_name", "must be a string")
	} else if utf8.RuneCountInString(legalName) > maxLegalNameLength {
		add("legal_name", fmt.Sprintf("must be at most %d characters", maxLegalNameLength))
	}

	cc, countryErr := c.resolveCountry(f)
	if countryErr != "" {
		add("country", countryErr)
	}
	var cfg domain.CountryConfig
	if countryErr == "" {
		var err error
		cfg, err = c.Store.CountryConfig(ctx, accountID, cc.Alpha2)
		switch {
		case domain.ErrorCode(err) == domain.ECodeNotFound || (err == nil && !cfg.Active):
			add("country", "is not configured for this account")
		case err != nil:
			return checks.IntakeInput{}, err
		case number != "" && len(fields["registration_number"]) == 0:
			if msg := registrationProblem(cfg, number); msg != "" {
				add("registration_number", msg)
			}
		}
	}
	if len(fields) > 0 {
		return checks.IntakeInput{}, &domain.Error{Code: domain.ECodeInvalid, Message: "Validation failed.", Fields: fields}
	}
	return checks.IntakeInput{
		AccountID: accountID, RegistrationNumber: number, CountryCode: cc.Alpha2, CountryID: cc.Numeric,
		DeclaredName: legalName, Config: cfg,
	}, nil
}

// duplicateKey is the first key that appears twice in one object of a JSON
// document already known to be valid, or "".
func duplicateKey(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	// Per open container: the keys seen (objects) or nil (arrays); and
	// whether the next string token in an object is a key.
	var seen []map[string]bool
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				seen = append(seen, map[string]bool{})
				expectKey = true
				continue
			case '[':
				seen = append(seen, nil)
			default:
				seen = seen[:len(seen)-1]
			}
		case string:
			if expectKey && len(seen) > 0 && seen[len(seen)-1] != nil {
				if seen[len(seen)-1][v] {
					return v
				}
				seen[len(seen)-1][v] = true
				expectKey = false
				continue
			}
		}
		// After a value inside an object, a key comes next.
		expectKey = len(seen) > 0 && seen[len(seen)-1] != nil
	}
}

// resolveCountry reads country_code (preferred) and country_id; when both
// are sent they must name the same country. It returns an error message for
// errors.country, or "".
func (c CreateEntity) resolveCountry(f *createFields) (country.Country, string) {
	code, codeOK := jsonString(f.CountryCode)
	code = strings.TrimSpace(code)
	idSent := len(f.CountryID) > 0 && string(f.CountryID) != "null"
	if !codeOK {
		return country.Country{}, "country_code must be a string"
	}
	if code == "" && !idSent {
		return country.Country{}, `Country is required: send country_code, an ISO 3166-1 alpha-2 code such as "SA"`
	}
	var byCode, byID country.Country
	if code != "" {
		var ok bool
		if byCode, ok = c.Countries.ByAlpha2(code); !ok {
			return country.Country{}, fmt.Sprintf("Country %q is not a country the service knows", code)
		}
	}
	if idSent {
		var id int
		if err := json.Unmarshal(f.CountryID, &id); err != nil {
			return country.Country{}, "country_id must be an integer"
		}
		var ok bool
		if byID, ok = c.Countries.ByNumeric(id); !ok {
			return country.Country{}, fmt.Sprintf("Country %d is not a country the service knows", id)
		}
	}
	switch {
	case code != "" && idSent && byCode.Numeric != byID.Numeric:
		return country.Country{}, fmt.Sprintf("country_code %q and country_id %d name different countries", code, byID.Numeric)
	case code != "":
		return byCode, ""
	default:
		return byID, ""
	}
}

// registrationProblem checks a registration number against the country's
// rule, returning the rule's message when it does not match.
func registrationProblem(cfg domain.CountryConfig, number string) string {
	pattern, msg := cfg.RegistrationPattern, cfg.RegistrationMessage
	if pattern == "" {
		pattern, msg = domain.GenericRegistrationPattern, domain.GenericRegistrationMessage
	}
	re, err := regexp.Compile(pattern)
	if err != nil || !re.MatchString(number) {
		return msg
	}
	return ""
}

// jsonString reads an optional JSON string: absent or null is "" and ok.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
