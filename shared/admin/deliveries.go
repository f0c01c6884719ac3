package admin

import (
	"context"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

// The deliveries view and redelivery. Without operator_id the administrator
// acts; with it, the operator needs webhook_delivery.view to list and
// webhook_endpoint.manage to redeliver.

type deliveryFields struct {
	common
	AccountID  int64  `json:"account_id" strict:"id"`
	OperatorID int64  `json:"operator_id" strict:"id"`
	DeliveryID string `json:"delivery_id" text:"token"`
	EndpointID int64  `json:"endpoint_id" strict:"id"`
	ReviewID   int64  `json:"review_id" strict:"id"`
	EventType  string `json:"event_type"`
	Status     string `json:"status"`
	Limit      int    `json:"limit" strict:"min=1,max=1000"`
	Reason     string `json:"reason" text:"reason"`
	// CreatedFrom and CreatedBefore bound a listing by when the attempts
	// were created (RFC 3339; from included, before excluded).
	CreatedFrom   string `json:"created_from"`
	CreatedBefore string `json:"created_before"`
}

func (h *Handler) deliveryCall(ctx context.Context, c *call) (deliveryFields, error) {
	var p deliveryFields
	if err := decode(c, &p); err != nil {
		return p, err
	}
	_, err := h.account(ctx, p.AccountID)
	return p, err
}

func (h *Handler) deliveryList(ctx context.Context, c *call) (any, error) {
	p, err := h.deliveryCall(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := notFields(c, map[string]bool{"delivery_id": p.DeliveryID != "", "reason": p.Reason != ""}); err != nil {
		return nil, err
	}
	if p.Limit == 0 { // left out; given, it is 1 to 1,000 (its tag)
		p.Limit = 100
	}
	f := domain.DeliveryFilter{EndpointID: p.EndpointID, ReviewID: p.ReviewID, Status: domain.DeliveryStatus(p.Status), Limit: p.Limit}
	if p.EventType != "" {
		f.EventType = eventTypes(&[]string{p.EventType})[0]
	}
	if f.CreatedFrom, err = rfc3339("created_from", p.CreatedFrom); err != nil {
		return nil, err
	}
	if f.CreatedBefore, err = rfc3339("created_before", p.CreatedBefore); err != nil {
		return nil, err
	}
	var ds []domain.Delivery
	if p.OperatorID != 0 {
		ds, err = h.deliveries().List(ctx, p.AccountID, p.OperatorID, f)
	} else {
		ds, err = h.deliveries().ListAll(ctx, p.AccountID, f)
	}
	if err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		// Nothing listed: say so when a filter names what the account
		// does not hold, rather than answer "no deliveries".
		if err := h.deliveryFiltersIn(ctx, p.AccountID, f); err != nil {
			return nil, err
		}
	}
	out := make([]DeliveryView, 0, len(ds))
	for _, d := range ds {
		out = append(out, viewDelivery(d))
	}
	return map[string]any{"deliveries": out}, nil
}

// deliveryFiltersIn answers NotFound for an endpoint or review filter the
// account does not hold (another account's, or none). An endpoint deleted
// since is still the account's while any attempt of it is kept: its
// deliveries remain listable.
func (h *Handler) deliveryFiltersIn(ctx context.Context, accountID int64, f domain.DeliveryFilter) error {
	if f.EndpointID > 0 {
		_, err := h.Store.Endpoint(ctx, accountID, f.EndpointID)
		if domain.ErrorCode(err) == domain.ECodeNotFound {
			var kept []domain.Delivery
			kept, err = h.Store.Deliveries(ctx, accountID, domain.DeliveryFilter{EndpointID: f.EndpointID, Limit: 1})
			if err == nil && len(kept) == 0 {
				return domain.Errorf(domain.ECodeNotFound, "Webhook endpoint %d not found in account %d.", f.EndpointID, accountID)
			}
		}
		if err != nil {
			return err
		}
	}
	if f.ReviewID > 0 {
		_, err := h.Store.Review(ctx, accountID, f.ReviewID)
		if domain.ErrorCode(err) == domain.ECodeNotFound {
			return domain.Errorf(domain.ECodeNotFound, "Review %d not found in account %d%s.", f.ReviewID, accountID, domain.ShortIDHint(accountID, f.ReviewID))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) deliveryGet(ctx context.Context, c *call) (any, error) {
	p, err := h.deliveryCall(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := deliveryOnly(c, p); err != nil {
		return nil, err
	}
	if err := notFields(c, map[string]bool{"reason": p.Reason != ""}); err != nil {
		return nil, err
	}
	d, err := h.deliveries().Get(ctx, c.actor(p.AccountID, p.OperatorID), p.DeliveryID)
	if err != nil {
		// Each rewrites only its own record's absence.
		return nil, notFoundIn(notFoundIn(err, p.AccountID, "operator", p.OperatorID), p.AccountID, "delivery", p.DeliveryID)
	}
	return map[string]any{"delivery": viewDelivery(d)}, nil
}

// deliveryRedeliver makes a new attempt of a failed delivery, audited.
func (h *Handler) deliveryRedeliver(ctx context.Context, c *call) (any, error) {
	p, err := h.deliveryCall(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := deliveryOnly(c, p); err != nil {
		return nil, err
	}
	if err := freetext.Check("reason", p.Reason, freetext.Reason, true); err != nil {
		return nil, err
	}
	d, err := h.deliveries().RedeliverAs(ctx, c.actor(p.AccountID, p.OperatorID), p.DeliveryID, p.Reason)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "delivery", p.DeliveryID)
	}
	return map[string]any{"delivery": viewDelivery(d)}, nil
}

// deliveryOnly checks the delivery id of a command about one delivery, and
// refuses list filters on it.
func deliveryOnly(c *call, p deliveryFields) error {
	if err := freetext.Check("delivery_id", p.DeliveryID, freetext.Token, true); err != nil {
		return err
	}
	if !strings.HasPrefix(p.DeliveryID, "dlv_") {
		return domain.Invalid("delivery_id", "must be a delivery id, such as dlv_…")
	}
	return notFields(c, map[string]bool{"endpoint_id": p.EndpointID != 0, "review_id": p.ReviewID != 0,
		"event_type": p.EventType != "", "status": p.Status != "", "limit": p.Limit != 0,
		"created_from": p.CreatedFrom != "", "created_before": p.CreatedBefore != ""})
}

// rfc3339 reads a time field; "" is the zero time (that end left open).
// The range itself is checked by the filter's Validate.
func rfc3339(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, domain.Invalid(field, "must be an RFC 3339 time, such as 2026-11-01T00:00:00Z")
	}
	return t, nil
}
