package admin

import (
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// The records as commands answer them: every time RFC 3339 UTC with
// milliseconds, absent values null, never a key's hash or a secret.

// changeAnswer is the answer of a command that changes one record in place
// (account.update, operator.update, operator.disable, endpoint.update): the
// record as it now is under its name, and "changed", false when the
// command found the record already as it asked, and so wrote nothing (no
// item, no audit record).
func changeAnswer(name string, view any, changed bool) map[string]any {
	return map[string]any{name: view, "changed": changed}
}

// sameSet reports whether two lists hold the same strings, in any order
// (DynamoDB returns a string set in an order of its own).
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// AccountView is an account with its settings and, where read, countries.
type AccountView struct {
	ID                 int64    `json:"id"`
	Name               string   `json:"name"`
	ReviewIntervalDays int      `json:"review_interval_days"`
	FourEyes           []string `json:"four_eyes"`
	// DeclaredDecisions: whether unsigned decisions are accepted.
	DeclaredDecisions bool                         `json:"declared_decisions"`
	SLADays           map[domain.ReviewPurpose]int `json:"sla_days"`
	// ExtendedRetentionYears: 0 keeps each country's retention rule.
	ExtendedRetentionYears int `json:"extended_retention_years"`
	// OwnershipThresholdPercent: the share from which a natural person is
	// a beneficial owner by ownership (25 unless the account set less).
	OwnershipThresholdPercent int           `json:"ownership_threshold_percent"`
	Countries                 []CountryView `json:"countries,omitempty"`
	CreatedAt                 string        `json:"created_at"`
}

// CountryView is an account's configuration of one country.
type CountryView struct {
	Code                string               `json:"code"`
	CountryID           int                  `json:"country_id"`
	Active              bool                 `json:"active"`
	RegistrationPattern string               `json:"registration_pattern"`
	RegistrationMessage string               `json:"registration_message"`
	IntakeChecks        []domain.IntakeCheck `json:"intake_checks"`
	UpdatedAt           string               `json:"updated_at"`
}

func viewAccount(a domain.Account, countries []domain.CountryConfig) AccountView {
	v := AccountView{ID: a.ID, Name: a.Name, ReviewIntervalDays: a.Settings.ReviewIntervalDays, FourEyes: a.Settings.FourEyes,
		DeclaredDecisions: a.Settings.DeclaredDecisions, SLADays: a.Settings.SLADays,
		ExtendedRetentionYears: a.Settings.ExtendedRetentionYears, OwnershipThresholdPercent: a.Settings.OwnershipThreshold(), CreatedAt: domain.FormatTime(a.CreatedAt)}
	if v.SLADays == nil {
		v.SLADays = map[domain.ReviewPurpose]int{}
	}
	if v.FourEyes == nil {
		v.FourEyes = []string{}
	}
	for _, c := range countries {
		v.Countries = append(v.Countries, CountryView{Code: c.CountryCode, CountryID: c.CountryID, Active: c.Active,
			RegistrationPattern: c.RegistrationPattern, RegistrationMessage: c.RegistrationMessage,
			IntakeChecks: c.IntakeChecks, UpdatedAt: domain.FormatTime(c.UpdatedAt)})
	}
	return v
}

// KeyView is an API key without its secret.
type KeyView struct {
	ID          string   `json:"id"`
	AccountID   int64    `json:"account_id"`
	Prefix      string   `json:"prefix"`
	Permissions []string `json:"permissions"`
	Description string   `json:"description"`
	Active      bool     `json:"active"`
	CreatedAt   string   `json:"created_at"`
	// RevokedAt is when the key stopped (or, after a rotation, stops)
	// working.
	RevokedAt *string `json:"revoked_at"`
}

func viewKey(k domain.APIKey, now time.Time) KeyView {
	return KeyView{ID: k.ID, AccountID: k.AccountID, Prefix: k.Prefix, Permissions: k.Permissions, Description: k.Description,
		Active: k.ActiveAt(now), CreatedAt: domain.FormatTime(k.CreatedAt), RevokedAt: optTime(k.RevokedAt)}
}

// OperatorView is an operator.
type OperatorView struct {
	ID          int64    `json:"id"`
	AccountID   int64    `json:"account_id"`
	Name        string   `json:"name"`
	Permissions []string `json:"permissions"`
	Active      bool     `json:"active"`
	CreatedAt   string   `json:"created_at"`
	DisabledAt  *string  `json:"disabled_at"`
}

func viewOperator(o domain.Operator) OperatorView {
	v := OperatorView{ID: o.ID, AccountID: o.AccountID, Name: o.Name, Permissions: o.Permissions, Active: o.DisabledAt == nil,
		CreatedAt: domain.FormatTime(o.CreatedAt), DisabledAt: optTime(o.DisabledAt)}
	if v.Permissions == nil {
		v.Permissions = []string{}
	}
	return v
}

// EndpointView is a webhook endpoint, never its secrets.
type EndpointView struct {
	ID                      int64              `json:"id"`
	AccountID               int64              `json:"account_id"`
	URL                     string             `json:"url"`
	Events                  []domain.EventType `json:"events"`
	Active                  bool               `json:"active"`
	Description             string             `json:"description,omitempty"`
	PreviousSecretExpiresAt *string            `json:"previous_secret_expires_at"`
	CreatedAt               string             `json:"created_at"`
	UpdatedAt               string             `json:"updated_at"`
}

func viewEndpoint(ep domain.Endpoint) EndpointView {
	return EndpointView{ID: ep.ID, AccountID: ep.AccountID, URL: ep.URL, Events: ep.Events, Active: ep.Active, Description: ep.Description,
		PreviousSecretExpiresAt: optTime(ep.PreviousExpiresAt), CreatedAt: domain.FormatTime(ep.CreatedAt), UpdatedAt: domain.FormatTime(ep.UpdatedAt)}
}

// DeliveryView is one delivery attempt, as the deliveries view shows it.
type DeliveryView struct {
	ID             string  `json:"id"`
	OriginalID     string  `json:"original_id"`
	Attempt        int     `json:"attempt"`
	EndpointID     int64   `json:"endpoint_id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	ReviewID       int64   `json:"entity_review_id"`
	EntityID       int64   `json:"entity_id"`
	URL            string  `json:"url"`
	Status         string  `json:"status"`
	ResponseStatus int     `json:"response_status,omitempty"`
	ResponseBody   string  `json:"response_body,omitempty"`
	Error          string  `json:"error,omitempty"`
	DurationMS     int64   `json:"duration_ms"`
	RequestedBy    *int64  `json:"requested_by,omitempty"`
	Reason         string  `json:"reason,omitempty"`
	CreatedAt      string  `json:"created_at"`
	StartedAt      *string `json:"started_at"`
	CompletedAt    *string `json:"completed_at"`
}

func viewDelivery(d domain.Delivery) DeliveryView {
	return DeliveryView{
		ID: d.ID, OriginalID: d.OriginalID, Attempt: d.Attempt, EndpointID: d.EndpointID, EventID: d.EventID,
		EventType: string(d.Event.EventType), ReviewID: d.Event.EntityReviewID, EntityID: d.Event.EntityID, URL: d.URL,
		Status: string(d.Status), ResponseStatus: d.ResponseStatus, ResponseBody: d.ResponseBody, Error: d.Error,
		DurationMS: d.DurationMS, RequestedBy: d.RequestedBy, Reason: d.Reason, CreatedAt: domain.FormatTime(d.CreatedAt),
		StartedAt: optTime(d.StartedAt), CompletedAt: optTime(d.CompletedAt),
	}
}

// AuditView is one audit record.
type AuditView struct {
	At               string         `json:"at"`
	Action           domain.Action  `json:"action"`
	ActionID         string         `json:"action_id"`
	AccountID        int64          `json:"account_id"`
	OperatorID       int64          `json:"operator_id"`
	OperatorName     string         `json:"operator_name"`
	Actor            string         `json:"actor,omitempty"`
	RequestID        string         `json:"request_id,omitempty"`
	ReviewID         *int64         `json:"review_id"`
	EntityID         int64          `json:"entity_id,omitempty"`
	Reason           string         `json:"reason"`
	Before           map[string]any `json:"before"`
	After            map[string]any `json:"after"`
	SecondApproverID *int64         `json:"second_approver_id"`
	// What the operator saw and what was decided on (decisions only).
	SeenETag      string `json:"seen_etag,omitempty"`
	DossierETag   string `json:"dossier_etag,omitempty"`
	DossierSHA256 string `json:"dossier_sha256,omitempty"`
	// How the operator was known (decisions and queue claims): passkey,
	// declared or session (actor then names the session's passkey).
	// Signatures are a passkey decision's, each checked.
	Identity   domain.Identity      `json:"identity,omitempty"`
	Signatures []AuditSignatureView `json:"signatures,omitempty"`
}

// AuditSignatureView is one signature of a decision, checked against the
// public key the account's own chain recorded for its credential.
type AuditSignatureView struct {
	Role         string `json:"role"`
	OperatorID   int64  `json:"operator_id"`
	CredentialID string `json:"credential_id"`
	Verified     bool   `json:"verified"`
	Problem      string `json:"problem,omitempty"`
}

func viewSignature(c passkey.Check) AuditSignatureView {
	return AuditSignatureView{Role: c.Role, OperatorID: c.OperatorID, CredentialID: c.CredentialID, Verified: c.Verified, Problem: c.Problem}
}

func viewAudit(a domain.AuditRecord, checks []passkey.Check) AuditView {
	var sigs []AuditSignatureView
	for _, c := range checks {
		sigs = append(sigs, viewSignature(c))
	}
	return AuditView{Identity: a.Identity, Signatures: sigs, At: domain.FormatTime(a.At), Action: a.Action, ActionID: a.ActionID, AccountID: a.AccountID, OperatorID: a.OperatorID,
		OperatorName: a.OperatorName, Actor: a.Actor, RequestID: a.RequestID, ReviewID: a.ReviewID, EntityID: a.EntityID,
		Reason: a.Reason, Before: a.Before, After: a.After, SecondApproverID: a.SecondApproverID,
		SeenETag: a.SeenETag, DossierETag: a.DossierETag, DossierSHA256: a.DossierSHA256}
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := domain.FormatTime(*t)
	return &s
}
