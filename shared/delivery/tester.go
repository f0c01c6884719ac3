package delivery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestStore is what sending a test event reads and writes.
type TestStore interface {
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// not_found: no such endpoint in the account.
	Endpoint(ctx context.Context, accountID, id int64) (domain.Endpoint, error)
	// not_found: no such attempt in the account.
	Delivery(ctx context.Context, accountID int64, id string) (domain.Delivery, error)
	// not_found: the action was never applied.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
	// No codes; domain.ErrDuplicateAction if the action id was applied before.
	CreateTestDelivery(ctx context.Context, d domain.Delivery, audit domain.AuditRecord) error
}

// Tester sends test events: the settings area's "Send test event", and the
// admin command endpoint.test.
type Tester struct {
	Store TestStore
	Queue Sender
	// Clock stamps the ping and its attempt (required).
	Clock domain.Clock
}

// SendTest posts a ping (PingBody) to one active endpoint, whatever it
// subscribes to: recorded queued with its audit record in one transaction,
// then queued, and posted by the webhook-delivery function as any delivery
// is, signed the same way. It shows in the deliveries view (event "ping")
// and can be redelivered. The actor is an operator with
// webhook_endpoint.manage, or the account's administrator (OperatorID 0
// and Admin set). The action id names the ping: the same one again sends
// nothing new, and queues the ping again while it is still queued (its
// message lost to a failed send).
func (t *Tester) SendTest(ctx context.Context, a domain.Actor, endpointID int64) (domain.Delivery, error) {
	if a.AccountID <= 0 {
		return domain.Delivery{}, domain.Invalid("account", "is required")
	}
	op := domain.Operator{Name: a.AdminName()}
	if a.OperatorID != 0 || a.Admin == "" {
		var err error
		if op, err = permitted(ctx, t.Store, a.AccountID, a.OperatorID, domain.PermWebhookEndpointEdit); err != nil {
			return domain.Delivery{}, err
		}
	}
	if strings.TrimSpace(a.ActionID) == "" {
		return domain.Delivery{}, domain.Invalid("action_id", "can't be blank")
	}
	if endpointID <= 0 {
		return domain.Delivery{}, domain.Invalid("endpoint", "is required")
	}
	if rec, err := t.Store.AuditRecord(ctx, a.AccountID, a.ActionID); err == nil {
		return requeue(ctx, t.Store, t.Queue, rec, domain.ActionEndpointTest)
	}
	ep, err := t.Store.Endpoint(ctx, a.AccountID, endpointID)
	if err != nil {
		return domain.Delivery{}, err
	}
	if !ep.Active {
		return domain.Delivery{}, domain.Errorf(domain.ECodeConflict, "Webhook endpoint %d is deactivated: activate it to send it a test event.", ep.ID)
	}

	now := t.Clock.Now()
	eventID := PingEventID(a.AccountID, ep.ID, a.ActionID)
	body, err := EncodePing(a.AccountID, ep.ID, domain.FormatTime(now))
	if err != nil {
		return domain.Delivery{}, err
	}
	id := ID(eventID, ep.ID)
	var requestedBy *int64
	if op.ID != 0 {
		requestedBy = &op.ID
	}
	d := domain.Delivery{
		AccountID: a.AccountID, ID: id, OriginalID: id, Attempt: 1, Attempts: 1, EndpointID: ep.ID, EventID: eventID,
		Event:   domain.Event{EventType: domain.EventPing, AccountID: a.AccountID, OccurredAt: domain.FormatTime(now)},
		Payload: body, URL: ep.URL, Status: domain.DeliveryQueued, RequestedBy: requestedBy, CreatedAt: now,
	}
	err = t.Store.CreateTestDelivery(ctx, d, domain.AuditRecord{
		AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionEndpointTest, OperatorID: op.ID, OperatorName: op.Name,
		Actor: a.Admin, RequestID: a.RequestID, At: now,
		After: map[string]any{"delivery_id": id, "endpoint_id": ep.ID, "event_id": eventID, "url": ep.URL},
	})
	if errors.Is(err, domain.ErrDuplicateAction) {
		// The same action, applied meanwhile.
		rec, err := t.Store.AuditRecord(ctx, a.AccountID, a.ActionID)
		if err != nil {
			return domain.Delivery{}, err
		}
		return requeue(ctx, t.Store, t.Queue, rec, domain.ActionEndpointTest)
	}
	if err != nil {
		return domain.Delivery{}, err
	}
	if err := t.Queue.Send(ctx, []Message{message(d)}); err != nil {
		// Recorded queued: the same action again queues it.
		return d, fmt.Errorf("queue test event %s (recorded queued; repeat action %s to queue it): %w", d.ID, a.ActionID, err)
	}
	return d, nil
}

// PingEventID names the ping an action sends to an endpoint ("evt_" and 32
// hex digits, as review events' ids): the same action names the same ping,
// so it is recorded once.
func PingEventID(accountID, endpointID int64, actionID string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("ping|%d|%d|%s", accountID, endpointID, actionID)))
	return "evt_" + hex.EncodeToString(sum[:16])
}
