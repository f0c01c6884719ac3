package delivery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// ViewStore is what the deliveries view and redelivery read and write.
type ViewStore interface {
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// not_found: no such attempt in the account.
	Delivery(ctx context.Context, accountID int64, id string) (domain.Delivery, error)
	// No codes (the filter is validated before).
	Deliveries(ctx context.Context, accountID int64, f domain.DeliveryFilter) ([]domain.Delivery, error)
	// No codes; domain.ErrStale if another attempt was added meanwhile,
	// domain.ErrDuplicateAction if the action id was applied before.
	CreateRedelivery(ctx context.Context, r domain.Redelivery) error
	// not_found: the action was never applied.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
}

// Sender queues deliveries.
type Sender interface {
	Send(ctx context.Context, msgs []Message) error
}

// Redeliverer is the deliveries view and redelivery, for operators and
// the account's administrator.
type Redeliverer struct {
	Store ViewStore
	Queue Sender
	// Clock stamps the new attempts (required).
	Clock domain.Clock
}

// List shows the account's attempts, newest first, to an operator with
// webhook_delivery.view.
func (o *Redeliverer) List(ctx context.Context, accountID, operatorID int64, f domain.DeliveryFilter) ([]domain.Delivery, error) {
	if _, err := o.operator(ctx, accountID, operatorID, domain.PermWebhookDeliveryView); err != nil {
		return nil, err
	}
	return o.ListAll(ctx, accountID, f)
}

// Redeliver makes a new attempt of a failed delivery (id names any of its
// attempts; the latest must have failed), by an operator with
// webhook_endpoint.manage, who must say why. The attempt and its audit record
// are written in one transaction, then queued; the same actionID redelivers
// once, and queues its attempt again while it is still queued (its message
// lost to a failed send). Any other action while the latest attempt is
// queued or sending is a conflict: of two operators redelivering at once,
// one wins.
func (o *Redeliverer) Redeliver(ctx context.Context, accountID int64, id string, operatorID int64, reason, actionID string) (domain.Delivery, error) {
	return o.RedeliverAs(ctx, domain.Actor{AccountID: accountID, OperatorID: operatorID, ActionID: actionID}, id, reason)
}

// RedeliverAs is Redeliver by an actor: an operator with
// webhook_endpoint.manage, or the account's administrator (OperatorID 0 and
// Admin set, as the admin function acts).
func (o *Redeliverer) RedeliverAs(ctx context.Context, a domain.Actor, id, reason string) (domain.Delivery, error) {
	accountID, actionID := a.AccountID, a.ActionID
	op, err := o.actor(ctx, a, domain.PermWebhookEndpointEdit)
	if err != nil {
		return domain.Delivery{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return domain.Delivery{}, domain.Invalid("reason", "can't be blank: say why the delivery is made again")
	}
	if strings.TrimSpace(actionID) == "" {
		return domain.Delivery{}, domain.Invalid("action_id", "can't be blank")
	}
	if rec, err := o.Store.AuditRecord(ctx, accountID, actionID); err == nil {
		return o.applied(ctx, rec)
	}
	orig, latest, err := o.failedAttempt(ctx, accountID, id)
	if err != nil {
		return domain.Delivery{}, err
	}
	r := redelivery(a, op, orig, latest, reason, o.Clock.Now())
	switch err := o.Store.CreateRedelivery(ctx, r); {
	case errors.Is(err, domain.ErrDuplicateAction):
		rec, err := o.Store.AuditRecord(ctx, accountID, actionID)
		if err != nil {
			return domain.Delivery{}, err
		}
		return o.applied(ctx, rec)
	case errors.Is(err, domain.ErrStale):
		return domain.Delivery{}, domain.Errorf(domain.ECodeConflict, "Delivery %s was redelivered meanwhile: look again.", orig.ID)
	case err != nil:
		return domain.Delivery{}, err
	}
	next := r.Attempt
	if err := o.Queue.Send(ctx, []Message{message(next)}); err != nil {
		// The attempt is recorded queued: the same action again queues it.
		return next, fmt.Errorf("queue redelivery %s (recorded queued; repeat action %s to queue it): %w", next.ID, actionID, err)
	}
	return next, nil
}

// failedAttempt is the delivery an attempt (id) belongs to, its original,
// and its latest attempt, which must have failed: one queued or sending is
// a conflict.
func (o *Redeliverer) failedAttempt(ctx context.Context, accountID int64, id string) (orig, latest domain.Delivery, err error) {
	att, err := o.Store.Delivery(ctx, accountID, id)
	if err != nil {
		return orig, latest, err
	}
	if orig, err = o.Store.Delivery(ctx, accountID, att.OriginalID); err != nil {
		return orig, latest, err
	}
	if latest, err = o.Store.Delivery(ctx, accountID, domain.AttemptID(orig.ID, orig.Attempts)); err != nil {
		return orig, latest, err
	}
	switch latest.Status {
	case domain.DeliveryFailed:
	case domain.DeliveryQueued:
		return orig, latest, domain.Errorf(domain.ECodeConflict,
			"Delivery %s is queued already; if its message was lost, repeat the redelivery that made it, with the same action id.", latest.ID)
	default:
		return orig, latest, domain.Errorf(domain.ECodeConflict, "Delivery %s is %s: only a failed delivery can be redelivered.", latest.ID, latest.Status)
	}
	return orig, latest, nil
}

// redelivery is the next attempt of orig, queued, requested by op (none
// for the account's administrator), with its audit record: the latest
// attempt before, the new one after.
func redelivery(a domain.Actor, op domain.Operator, orig, latest domain.Delivery, reason string, now time.Time) domain.Redelivery {
	n := orig.Attempts + 1
	next := domain.Delivery{
		AccountID: a.AccountID, ID: domain.AttemptID(orig.ID, n), OriginalID: orig.ID, Attempt: n,
		EndpointID: orig.EndpointID, EventID: orig.EventID, Event: orig.Event, Payload: orig.Payload, Status: domain.DeliveryQueued,
		Reason: reason, CreatedAt: now,
	}
	if op.ID != 0 {
		next.RequestedBy = &op.ID
	}
	// A ping concerns no review.
	var reviewID *int64
	if id := orig.Event.EntityReviewID; id != 0 {
		reviewID = &id
	}
	return domain.Redelivery{
		Original: orig, Attempt: next,
		Audit: domain.AuditRecord{
			AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionRedeliver, OperatorID: op.ID, OperatorName: op.Name,
			Actor: a.Admin, RequestID: a.RequestID, ReviewID: reviewID, EntityID: orig.Event.EntityID, Reason: reason, At: now,
			Before: map[string]any{"delivery_id": latest.ID, "status": string(latest.Status), "response_status": latest.ResponseStatus, "error": latest.Error},
			After: map[string]any{"delivery_id": next.ID, "status": string(next.Status), "attempt": n,
				"original_id": orig.ID, "endpoint_id": orig.EndpointID, "event_id": orig.EventID},
		},
	}
}

// applied is the attempt an action already made, queued again while it is
// still queued.
func (o *Redeliverer) applied(ctx context.Context, rec domain.AuditRecord) (domain.Delivery, error) {
	return requeue(ctx, o.Store, o.Queue, rec, domain.ActionRedeliver)
}

func (o *Redeliverer) operator(ctx context.Context, accountID, operatorID int64, perm string) (domain.Operator, error) {
	return permitted(ctx, o.Store, accountID, operatorID, perm)
}

// actor is who acts: the account's administrator (OperatorID 0 and Admin
// set, as the admin function acts), or an operator holding perm.
func (o *Redeliverer) actor(ctx context.Context, a domain.Actor, perm string) (domain.Operator, error) {
	if a.OperatorID == 0 && a.Admin != "" {
		return domain.Operator{Name: a.AdminName()}, nil
	}
	return o.operator(ctx, a.AccountID, a.OperatorID, perm)
}

// operatorReader reads operators.
type operatorReader interface {
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
}

// permitted is the operator, if they hold perm.
func permitted(ctx context.Context, s operatorReader, accountID, operatorID int64, perm string) (domain.Operator, error) {
	if operatorID <= 0 {
		return domain.Operator{}, domain.Invalid("operator", "is required")
	}
	op, err := s.Operator(ctx, accountID, operatorID)
	if err != nil {
		return domain.Operator{}, err
	}
	if !op.Can(perm) {
		return domain.Operator{}, domain.Errorf(domain.ECodeForbidden, "Operator %d (%s) lacks the %s permission.", op.ID, op.Name, perm)
	}
	return op, nil
}

// deliveryReader reads attempts.
type deliveryReader interface {
	Delivery(ctx context.Context, accountID int64, id string) (domain.Delivery, error)
}

// requeue is the attempt the audited action rec made (it must be an
// action of kind), queued again while it is still queued: its message may
// have been lost to a failed send, and a duplicate is harmless (it is
// claimed once).
func requeue(ctx context.Context, s deliveryReader, q Sender, rec domain.AuditRecord, kind domain.Action) (domain.Delivery, error) {
	id, _ := rec.After["delivery_id"].(string)
	if rec.Action != kind || id == "" {
		return domain.Delivery{}, domain.Errorf(domain.ECodeConflict, "Action id %s was used for %s.", rec.ActionID, rec.Action)
	}
	d, err := s.Delivery(ctx, rec.AccountID, id)
	if err != nil || d.Status != domain.DeliveryQueued {
		return d, err
	}
	if err := q.Send(ctx, []Message{message(d)}); err != nil {
		return d, fmt.Errorf("queue delivery %s: %w", d.ID, err)
	}
	return d, nil
}

// message is the message of an attempt recorded queued.
func message(d domain.Delivery) Message {
	return Message{AccountID: d.AccountID, DeliveryID: d.ID, Attempt: d.Attempt, EndpointID: d.EndpointID, EventID: d.EventID,
		Recorded: true, Event: d.Event}
}
