// Package subscriptions manages subscribers' webhook endpoints: URL checks,
// event kinds, a generated signing secret shown once, rotation with an
// overlap in which both secrets sign, deactivation and deletion. Every
// change is audited.
package subscriptions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// DefaultOverlap is how long the old secret keeps signing after a rotation.
const DefaultOverlap = 24 * time.Hour

// MaxOverlap bounds a rotation's overlap.
const MaxOverlap = 7 * 24 * time.Hour

// SecretPrefix starts every signing secret (not "whsec_": that names
// Standard Webhooks secrets, whose key is the base64 after it). The HMAC key
// is the whole secret string, prefix included, as shown.
const SecretPrefix = "evs_whsk_"

// Store is what endpoint management reads and writes.
type Store interface {
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// not_found: no such account; domain.ErrDuplicateAction if the action id
	// was applied before.
	CreateEndpoint(ctx context.Context, e domain.Endpoint, audit domain.AuditRecord) (domain.Endpoint, error)
	// not_found: no such endpoint in the account.
	Endpoint(ctx context.Context, accountID, id int64) (domain.Endpoint, error)
	// No codes.
	Endpoints(ctx context.Context, accountID int64, c domain.Consistency) ([]domain.Endpoint, error)
	// No codes; domain.ErrStale if it changed (or went) since read,
	// domain.ErrDuplicateAction if the action id was applied before.
	UpdateEndpoint(ctx context.Context, e domain.Endpoint, audit domain.AuditRecord) (domain.Endpoint, error)
	// No codes; domain.ErrStale if it changed since read,
	// domain.ErrDuplicateAction if the action id was applied before.
	DeleteEndpoint(ctx context.Context, accountID, id, version int64, audit domain.AuditRecord) error
	// not_found: no action with this id in the account. An update that
	// changes nothing writes nothing, and asks it whether its action id
	// named an earlier change.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
}

// Service manages endpoints.
type Service struct {
	Store Store
	// Allow lists the networks a plain-http or private endpoint may use
	// (none in AWS; loopback under make local).
	Allow webhooks.AllowList
	// Clock stamps the endpoints and the audit records (required).
	Clock domain.Clock
}

// Actor is who makes a change or reads. OperatorID 0 is the account's
// administrator (the admin function, the command line); any other operator
// needs webhook_endpoint.manage to change endpoints, and it or
// webhook_delivery.view to read them.
type Actor = domain.Actor

// Changes are the fields an update sets; nil leaves one as it is.
type Changes struct {
	URL         *string
	Events      []domain.EventType // nil: unchanged
	Active      *bool
	Description *string
}

// Create adds an endpoint, active, with a new secret (returned once here;
// List shows it no more).
func (s *Service) Create(ctx context.Context, a Actor, url string, events []domain.EventType, description string) (domain.Endpoint, error) {
	op, err := s.actor(ctx, a)
	if err != nil {
		return domain.Endpoint{}, err
	}
	if err := s.validate(url, events); err != nil {
		return domain.Endpoint{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return domain.Endpoint{}, err
	}
	now := s.Clock.Now()
	e := domain.Endpoint{
		AccountID: a.AccountID, URL: url, Events: dedupe(events), Active: true, Secret: secret,
		Description: description, CreatedAt: now, UpdatedAt: now,
	}
	out, err := s.Store.CreateEndpoint(ctx, e, s.audit(a, op, domain.ActionEndpointCreate, now, nil, nil))
	if errors.Is(err, domain.ErrDuplicateAction) {
		return domain.Endpoint{}, usedActionID(a)
	}
	return out, err
}

// List returns the account's endpoints with their secrets hidden, to the
// administrator or an operator holding webhook_endpoint.manage or
// webhook_delivery.view.
func (s *Service) List(ctx context.Context, a Actor) ([]domain.Endpoint, error) {
	if _, err := s.reader(ctx, a); err != nil {
		return nil, err
	}
	eps, err := s.Store.Endpoints(ctx, a.AccountID, domain.ReadStrong)
	if err != nil {
		return nil, err
	}
	for i := range eps {
		eps[i] = Redacted(eps[i])
	}
	return eps, nil
}

// Get returns one endpoint with its secrets hidden, to whom List does.
func (s *Service) Get(ctx context.Context, a Actor, id int64) (domain.Endpoint, error) {
	if _, err := s.reader(ctx, a); err != nil {
		return domain.Endpoint{}, err
	}
	e, err := s.Store.Endpoint(ctx, a.AccountID, id)
	return Redacted(e), err
}

// Update changes an endpoint's URL, events, active flag or description,
// and returns it with its secrets hidden. Deactivating stops deliveries
// (messages already queued are recorded failed, not posted); activating
// resumes them for new events. Only what changes is checked: an endpoint
// whose URL today's allow-list would refuse can still be deactivated.
// An update that changes nothing writes nothing (see UpdateChanged).
func (s *Service) Update(ctx context.Context, a Actor, id int64, c Changes) (domain.Endpoint, error) {
	out, _, err := s.UpdateChanged(ctx, a, id, c)
	return out, err
}

// UpdateChanged is Update, and says whether anything changed. When the
// changes leave the endpoint as it is stored (the same URL, events, active
// flag and description; deactivating an inactive endpoint), nothing is
// written, no item and no audit record, and the endpoint is answered as it
// is, with changed false; an action id that named an earlier change is
// still refused (Conflict), so a repeat reads the same whether or not its
// first try changed something.
func (s *Service) UpdateChanged(ctx context.Context, a Actor, id int64, c Changes) (ep domain.Endpoint, changed bool, err error) {
	out, changed, err := s.change(ctx, a, id, domain.ActionEndpointUpdate, sameSettings, func(e *domain.Endpoint, now time.Time) error {
		if c.URL != nil {
			if err := s.validateURL(*c.URL); err != nil {
				return err
			}
			e.URL = *c.URL
		}
		if c.Events != nil {
			if err := validateEvents(c.Events); err != nil {
				return err
			}
			e.Events = dedupe(c.Events)
		}
		if c.Active != nil {
			e.Active = *c.Active
		}
		if c.Description != nil {
			e.Description = *c.Description
		}
		return nil
	})
	return Redacted(out), changed, err
}

// Rotate gives the endpoint a new secret (returned once). The old one keeps
// signing for overlap (DefaultOverlap when 0; 0 < overlap <= MaxOverlap), so
// a receiver can switch without losing a delivery: meanwhile each delivery
// carries both signatures.
func (s *Service) Rotate(ctx context.Context, a Actor, id int64, overlap time.Duration) (domain.Endpoint, error) {
	if overlap == 0 {
		overlap = DefaultOverlap
	}
	if overlap < 0 || overlap > MaxOverlap {
		return domain.Endpoint{}, domain.Invalid("overlap", fmt.Sprintf("must be between 0 and %s", MaxOverlap))
	}
	secret, err := NewSecret()
	if err != nil {
		return domain.Endpoint{}, err
	}
	out, _, err := s.change(ctx, a, id, domain.ActionEndpointRotate, nil, func(e *domain.Endpoint, now time.Time) error {
		until := now.Add(overlap)
		e.PreviousSecret, e.PreviousExpiresAt, e.Secret = e.Secret, &until, secret
		return nil
	})
	return out, err
}

// Delete removes an endpoint; its delivery records stay.
func (s *Service) Delete(ctx context.Context, a Actor, id int64) error {
	op, err := s.actor(ctx, a)
	if err != nil {
		return err
	}
	e, err := s.Store.Endpoint(ctx, a.AccountID, id)
	if err != nil {
		return err
	}
	now := s.Clock.Now()
	err = s.Store.DeleteEndpoint(ctx, a.AccountID, id, e.Version, s.audit(a, op, domain.ActionEndpointDelete, now, snapshot(e), nil))
	if errors.Is(err, domain.ErrDuplicateAction) {
		return usedActionID(a)
	}
	if errors.Is(err, domain.ErrStale) {
		return domain.Errorf(domain.ECodeConflict, "Webhook endpoint %d changed meanwhile: look again.", id)
	}
	return err
}

// change applies a change to the endpoint as read and writes it with its
// audit record, conditioned on the version read. When same (nil: every
// change changes something) finds the result equal to what was read,
// nothing is written and the endpoint is answered as read, changed false.
func (s *Service) change(ctx context.Context, a Actor, id int64, action domain.Action, same func(before, after domain.Endpoint) bool,
	apply func(*domain.Endpoint, time.Time) error) (domain.Endpoint, bool, error) {
	op, err := s.actor(ctx, a)
	if err != nil {
		return domain.Endpoint{}, false, err
	}
	e, err := s.Store.Endpoint(ctx, a.AccountID, id)
	if err != nil {
		return domain.Endpoint{}, false, err
	}
	before, now := e, s.Clock.Now()
	if err := apply(&e, now); err != nil {
		return domain.Endpoint{}, false, err
	}
	if same != nil && same(before, e) {
		if err := domain.ActionIDUnused(ctx, s.Store, a.AccountID, a.ActionID); errors.Is(err, domain.ErrDuplicateAction) {
			return domain.Endpoint{}, false, usedActionID(a)
		} else if err != nil {
			return domain.Endpoint{}, false, err
		}
		return before, false, nil
	}
	e.UpdatedAt = now
	out, err := s.Store.UpdateEndpoint(ctx, e, s.audit(a, op, action, now, snapshot(before), snapshot(e)))
	if errors.Is(err, domain.ErrDuplicateAction) {
		return domain.Endpoint{}, false, usedActionID(a)
	}
	if errors.Is(err, domain.ErrStale) {
		return domain.Endpoint{}, false, domain.Errorf(domain.ECodeConflict, "Webhook endpoint %d changed meanwhile: look again.", id)
	}
	if err != nil {
		return domain.Endpoint{}, false, err
	}
	return out, true, nil
}

// sameSettings reports whether an update left what it may change (URL,
// events, active flag, description) as it was: events as a set.
func sameSettings(before, after domain.Endpoint) bool {
	return before.URL == after.URL && before.Active == after.Active && before.Description == after.Description &&
		slices.Equal(sortedEvents(before.Events), sortedEvents(after.Events))
}

func sortedEvents(ts []domain.EventType) []domain.EventType {
	out := dedupe(ts)
	slices.Sort(out)
	return out
}

// readPerms are the permissions of which an operator needs one to read
// endpoints: who may see the deliveries may see where they go. Reads
// return no secret (Redacted), so reading needs less than changing.
var readPerms = []string{domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView}

// reader is who reads: a read names no change, so needs no action id.
func (s *Service) reader(ctx context.Context, a Actor) (domain.Operator, error) {
	if a.ActionID == "" {
		a.ActionID = "read"
	}
	return s.permitted(ctx, a, readPerms...)
}

// actor is who changes an endpoint: webhook_endpoint.manage.
func (s *Service) actor(ctx context.Context, a Actor) (domain.Operator, error) {
	return s.permitted(ctx, a, domain.PermWebhookEndpointEdit)
}

// permitted is the administrator, or the account's operator if they hold
// one of perms.
func (s *Service) permitted(ctx context.Context, a Actor, perms ...string) (domain.Operator, error) {
	if a.AccountID <= 0 {
		return domain.Operator{}, domain.Invalid("account", "is required")
	}
	if strings.TrimSpace(a.ActionID) == "" {
		return domain.Operator{}, domain.Invalid("action_id", "can't be blank")
	}
	if a.OperatorID == 0 {
		return domain.Operator{Name: a.AdminName()}, nil
	}
	op, err := s.Store.Operator(ctx, a.AccountID, a.OperatorID)
	if err != nil {
		return domain.Operator{}, err
	}
	if !slices.ContainsFunc(perms, op.Can) {
		return domain.Operator{}, domain.Errorf(domain.ECodeForbidden, "Operator %d (%s) lacks the %s permission.", op.ID, op.Name, strings.Join(perms, " or "))
	}
	return op, nil
}

// usedActionID is the answer to a change whose action id named an earlier
// change: nothing is written again.
func usedActionID(a Actor) error {
	return domain.Errorf(domain.ECodeConflict, "Action id %s was applied already: use a new one for a new change.", a.ActionID)
}

func (s *Service) validate(url string, events []domain.EventType) error {
	if err := s.validateURL(url); err != nil {
		return err
	}
	return validateEvents(events)
}

func (s *Service) validateURL(url string) error {
	if err := webhooks.CheckURL(url, s.Allow); err != nil {
		return domain.Invalid("url", err.Error())
	}
	return nil
}

func validateEvents(events []domain.EventType) error {
	if len(events) == 0 {
		return domain.Invalid("events", fmt.Sprintf("can't be blank: subscribe to at least one of %v", domain.EventTypes()))
	}
	for _, t := range events {
		if !domain.ValidEventType(string(t)) {
			return domain.Invalid("events", fmt.Sprintf("%q is not an event; use %v", t, domain.EventTypes()))
		}
	}
	return nil
}

func (s *Service) audit(a Actor, op domain.Operator, action domain.Action, now time.Time, before, after map[string]any) domain.AuditRecord {
	return domain.AuditRecord{
		AccountID: a.AccountID, ActionID: a.ActionID, Action: action, OperatorID: op.ID, OperatorName: op.Name,
		Actor: a.Admin, RequestID: a.RequestID, Before: before, After: after, At: now,
	}
}

// NewSecret is a new signing secret: the prefix and 32 random bytes in hex.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new signing secret: %w", err)
	}
	return SecretPrefix + hex.EncodeToString(b), nil
}

// Redacted is the endpoint as listed: secrets are shown once, at creation
// and rotation.
func Redacted(e domain.Endpoint) domain.Endpoint {
	e.Secret, e.PreviousSecret = "", ""
	return e
}

// snapshot is an endpoint in the audit trail, without its secrets.
func snapshot(e domain.Endpoint) map[string]any {
	m := map[string]any{"endpoint_id": e.ID, "url": e.URL, "events": e.Events, "active": e.Active, "description": e.Description}
	if e.PreviousExpiresAt != nil {
		m["previous_secret_expires_at"] = domain.FormatTime(*e.PreviousExpiresAt)
	}
	return m
}

func dedupe(ts []domain.EventType) []domain.EventType {
	seen := map[domain.EventType]bool{}
	var out []domain.EventType
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
