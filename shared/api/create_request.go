package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// maxLegalNameLength bounds legal_name, in characters (freetext's rule).
var maxLegalNameLength = freetext.LegalName.Max

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
	f, err := decodeCreate(body)
	if err != nil {
		return checks.IntakeInput{}, err
	}
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
	} else if p := freetext.Problem(legalName, freetext.LegalName); p != "" {
		add("legal_name", p)
	}

	cc, countryErr := c.resolveCountry(f)
	if countryErr != "" {
		add("country", countryErr)
	}
	var cfg domain.CountryConfig
	if countryErr == "" {
		cfg, err = c.Store.CountryConfig(ctx, accountID, cc.Alpha2)
		switch {
		case domain.ErrorCode(err) == domain.ECodeNotFound || (err == nil && !cfg.Active):
			add("country", "is not configured for this account")
		case err != nil:
			return checks.IntakeInput{}, err
		case number != "" && len(fields["registration_number"]) == 0:
			if msg := cfg.RegistrationProblem(number); msg != "" {
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

// decodeCreate reads the body's entity: one JSON object, no key twice.
func decodeCreate(body []byte) (*createFields, error) {
	var req createRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return nil, domain.Invalid("entity", "must be an object")
		case errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
		default:
			return nil, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
		}
	}
	if dec.More() {
		return nil, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
	}
	// The last of a repeated key would win silently: a body that says two
	// things is refused rather than guessed at, by the reading every
	// operator-side document gets too (unknown keys stay ignored, as the
	// contract says, and invalid UTF-8 is each field's to refuse: 422).
	var se *strictjson.Error
	if err := strictjson.Check(body); errors.As(err, &se) {
		switch se.Kind {
		case strictjson.Duplicate:
			return nil, domain.Errorf(domain.ECodeBadRequest, "The request body names %s twice in one object.", strconv.Quote(strings.Trim(se.Key, `"`)))
		}
		return nil, domain.Errorf(domain.ECodeBadRequest, "The request body is not valid JSON.")
	}
	if req.Entity == nil {
		return nil, domain.Invalid("entity", "is required")
	}
	return req.Entity, nil
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
