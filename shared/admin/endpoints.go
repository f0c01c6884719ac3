package admin

import (
	"context"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

// Webhook endpoints (the contract's settings area). Without operator_id the
// administrator acts; with it, that operator must hold
// webhook_endpoint.manage to change an endpoint, and it or
// webhook_delivery.view to list or get one, as in the settings area.

type endpointFields struct {
	common
	AccountID   int64     `json:"account_id" strict:"id"`
	OperatorID  int64     `json:"operator_id" strict:"id"`
	EndpointID  int64     `json:"endpoint_id" strict:"id"`
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Active      *bool     `json:"active"`
	Description *string   `json:"description" text:"description"`
	Overlap     string    `json:"overlap"`
}

// endpointCall decodes the fields, checks the account, and refuses fields
// the command does not take (allowed lists those it does).
func (h *Handler) endpointCall(ctx context.Context, c *call, needID bool, allowed ...string) (endpointFields, domain.Actor, error) {
	var p endpointFields
	if err := decode(c, &p); err != nil {
		return p, domain.Actor{}, err
	}
	given := map[string]bool{"url": p.URL != nil, "events": p.Events != nil, "active": p.Active != nil,
		"description": p.Description != nil, "overlap": p.Overlap != ""}
	for _, f := range allowed {
		delete(given, f)
	}
	if err := notFields(c, given); err != nil {
		return p, domain.Actor{}, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return p, domain.Actor{}, err
	}
	if needID && p.EndpointID <= 0 {
		return p, domain.Actor{}, domain.Invalid("endpoint_id", "is required")
	}
	return p, c.actor(p.AccountID, p.OperatorID), nil
}

func (h *Handler) endpointCreate(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, false, "url", "events", "description")
	if err != nil {
		return nil, err
	}
	if p.EndpointID != 0 {
		return nil, domain.Invalid("endpoint_id", "is given by the service: leave it out")
	}
	if p.URL == nil {
		return nil, domain.Invalid("url", "is required")
	}
	desc := ""
	if p.Description != nil {
		desc = *p.Description
	}
	ep, err := h.endpoints().Create(ctx, a, *p.URL, eventTypes(p.Events), desc)
	if err != nil {
		return nil, err
	}
	// The secret is shown this once.
	return map[string]any{"endpoint": viewEndpoint(ep), "secret": ep.Secret}, nil
}

func (h *Handler) endpointList(ctx context.Context, c *call) (any, error) {
	_, a, err := h.endpointCall(ctx, c, false)
	if err != nil {
		return nil, err
	}
	eps, err := h.endpoints().List(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make([]EndpointView, 0, len(eps))
	for _, ep := range eps {
		out = append(out, viewEndpoint(ep))
	}
	return map[string]any{"endpoints": out}, nil
}

func (h *Handler) endpointGet(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, true)
	if err != nil {
		return nil, err
	}
	ep, err := h.endpoints().Get(ctx, a, p.EndpointID)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "webhook endpoint", p.EndpointID)
	}
	return map[string]any{"endpoint": viewEndpoint(ep)}, nil
}

func (h *Handler) endpointUpdate(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, true, "url", "events", "active", "description")
	if err != nil {
		return nil, err
	}
	ch := subscriptions.Changes{URL: p.URL, Active: p.Active, Description: p.Description}
	if p.Events != nil {
		ch.Events = eventTypes(p.Events)
		if ch.Events == nil {
			ch.Events = []domain.EventType{}
		}
	}
	if ch.URL == nil && ch.Events == nil && ch.Active == nil && ch.Description == nil {
		return nil, domain.Invalid("url", "or events, active or description is required: say what changes")
	}
	// Changes that leave the endpoint as it is (deactivating an inactive
	// one, the same URL) write nothing: "changed": false.
	ep, changed, err := h.endpoints().UpdateChanged(ctx, a, p.EndpointID, ch)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "webhook endpoint", p.EndpointID)
	}
	return changeAnswer("endpoint", viewEndpoint(ep), changed), nil
}

// endpointRotate gives the endpoint a new secret, shown this once; the old
// one keeps signing for the overlap (default 24h).
func (h *Handler) endpointRotate(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, true, "overlap")
	if err != nil {
		return nil, err
	}
	overlap, err := parseOverlap(p.Overlap, subscriptions.DefaultOverlap, subscriptions.MaxOverlap)
	if err != nil {
		return nil, err
	}
	if overlap == 0 {
		// The service signs with both secrets only for a positive overlap.
		return nil, domain.Invalid("overlap", "must be more than 0s: the old secret signs until it ends")
	}
	ep, err := h.endpoints().Rotate(ctx, a, p.EndpointID, overlap)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "webhook endpoint", p.EndpointID)
	}
	return map[string]any{"endpoint": viewEndpoint(subscriptions.Redacted(ep)), "secret": ep.Secret}, nil
}

func (h *Handler) endpointDelete(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, true)
	if err != nil {
		return nil, err
	}
	if err := h.endpoints().Delete(ctx, a, p.EndpointID); err != nil {
		return nil, notFoundIn(err, p.AccountID, "webhook endpoint", p.EndpointID)
	}
	return map[string]any{"deleted": p.EndpointID}, nil
}

// endpointTest sends the endpoint a test event (ping), recorded and listed
// as a delivery, audited.
func (h *Handler) endpointTest(ctx context.Context, c *call) (any, error) {
	p, a, err := h.endpointCall(ctx, c, true)
	if err != nil {
		return nil, err
	}
	d, err := h.tester().SendTest(ctx, a, p.EndpointID)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "webhook endpoint", p.EndpointID)
	}
	return map[string]any{"delivery": viewDelivery(d)}, nil
}

// eventTypes reads event kinds; "approved" is short for
// "entity_review.approved". The endpoint service refuses unknown kinds.
func eventTypes(list *[]string) []domain.EventType {
	if list == nil {
		return nil
	}
	var out []domain.EventType
	for _, e := range trimAll(*list) {
		if !strings.Contains(e, ".") && e != string(domain.EventPing) {
			e = "entity_review." + e
		}
		out = append(out, domain.EventType(e))
	}
	return out
}

// notFoundIn says which account lacks the record, so an id of another
// account reads as what it is.
func notFoundIn(err error, accountID int64, what string, id any) error {
	// Only the record's own absence: an operator_id of nothing keeps its
	// own message.
	if domain.ErrorCode(err) == domain.ECodeNotFound && strings.EqualFold(domain.ErrorMessage(err), what+" not found.") {
		return domain.Errorf(domain.ECodeNotFound, "Account %d has no %s %v.", accountID, what, id)
	}
	return err
}

func joinStrings(list []string) string { return strings.Join(list, ", ") }
