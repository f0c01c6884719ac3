package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/metrics"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// Headers of a delivery besides Content-Type and X-Service-Signature.
const (
	// HeaderDeliveryID names the attempt (a redelivery has its own).
	HeaderDeliveryID = "X-Service-Delivery-Id"
	// HeaderEventID names the event: the same on every attempt, the key a
	// receiver de-duplicates on.
	HeaderEventID = "X-Service-Event-Id"
	// HeaderTimestamp is when the attempt was sent, in Unix seconds.
	HeaderTimestamp = "X-Service-Timestamp"
	UserAgent       = "evs-webhooks/1"
)

// MaxRecordedBody is how much of a receiver's answer is kept.
const MaxRecordedBody = webhooks.MaxResponseBody

// DefaultLease is the lease when Deliverer.Lease is not set: Lambda's
// longest timeout, so it outlasts any delivery function. Without a lease a
// duplicate message arriving during the POST would record it interrupted.
const DefaultLease = 15 * time.Minute

// LeaseFor is the lease of a delivery function with that timeout: twice
// it, so a claim outlives the invocation that made it, and still shorter
// than the queue's visibility timeout (six times it), so the next copy of
// a message left by a crash records the claim interrupted.
func LeaseFor(timeoutSeconds int) time.Duration {
	return 2 * time.Duration(timeoutSeconds) * time.Second
}

// Store is what deliveries read and write.
type Store interface {
	// not_found: the endpoint was deleted.
	Endpoint(ctx context.Context, accountID, id int64) (domain.Endpoint, error)
	// not_found: a recorded attempt (d.Status queued) that was never
	// recorded.
	ClaimDelivery(ctx context.Context, d domain.Delivery, now time.Time, lease time.Duration) (domain.Delivery, domain.ClaimResult, error)
	// No codes; domain.ErrStale if the attempt is no longer sending.
	FinishDelivery(ctx context.Context, d domain.Delivery) error
}

// Deliverer is the webhook-delivery function.
type Deliverer struct {
	Store Store
	// Client posts; webhooks.NewClient gives it its timeout, refuses
	// private addresses at connect time and follows no redirect.
	Client *http.Client
	// Lease is how long a claim may stay sending before a duplicate message
	// records it interrupted: longer than the function's timeout
	// (DefaultLease when zero or less).
	Lease time.Duration
	// Margin is the time kept, after a POST's timeout, to record its
	// outcome before the function's deadline (DefaultMargin when zero or
	// less). See Handle.
	Margin  time.Duration
	Metrics *metrics.Writer
	// Clock stamps claims and attempts (required).
	Clock domain.Clock
}

// DefaultMargin is Deliverer.Margin's default: a conditional write to
// DynamoDB takes milliseconds; seconds cover a throttled retry or two.
const DefaultMargin = 3 * time.Second

// recordTimeout bounds recording an attempt's outcome. The recording is not
// tied to the invocation's cancellation: once a POST was made its outcome
// is written, since a claim left sending is later recorded failed as
// interrupted whatever the receiver got.
const recordTimeout = 10 * time.Second

// errNoTime: the function's deadline is too near to post and record.
var errNoTime = errors.New("too close to the function's deadline to post: left to SQS, unclaimed")

// Handle delivers each message of the batch, side by side. A message is
// reported failed (SQS gives it again, then its dead-letter queue) only when
// nothing could be recorded: an unreadable message, or the claim itself
// failing. Once claimed, the attempt's outcome is recorded and the message
// acknowledged, whatever the receiver answered: no automatic retry.
//
// Deadline: a POST is started only if it can end (the client's timeout) and
// be recorded (Margin) before ctx's deadline, the Lambda function's. A
// message that cannot is not claimed and is reported failed, so SQS gives it
// again, to an invocation with time for it, where recording it failed would
// lose a delivery nobody attempted. A POST already under way is recorded as
// it ends.
func (d *Deliverer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var (
		mu       sync.Mutex
		failures []events.SQSBatchItemFailure
		wg       sync.WaitGroup
	)
	for _, rec := range ev.Records {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := d.deliver(ctx, rec); err != nil {
				if errors.Is(err, errNoTime) {
					logging.From(ctx).Warn("delivery message left to SQS", "message_id", rec.MessageId, "reason", err.Error())
				} else {
					logging.From(ctx).Error("delivery message not processed", "message_id", rec.MessageId, "error", err.Error())
				}
				mu.Lock()
				failures = append(failures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return events.SQSEventResponse{BatchItemFailures: failures}, nil
}

func (d *Deliverer) lease() time.Duration {
	if d.Lease > 0 {
		return d.Lease
	}
	return DefaultLease
}

// hasTime reports whether a POST started now ends, and is recorded, before
// ctx's deadline; with no deadline there is always time.
func (d *Deliverer) hasTime(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	if !ok {
		return true
	}
	post := webhooks.DefaultTimeout
	if d.Client != nil && d.Client.Timeout > 0 {
		post = d.Client.Timeout
	}
	margin := d.Margin
	if margin <= 0 {
		margin = DefaultMargin
	}
	return time.Until(deadline) >= post+margin
}

func (d *Deliverer) deliver(ctx context.Context, rec events.SQSMessage) error {
	var m Message
	if err := json.Unmarshal([]byte(rec.Body), &m); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	if m.AccountID == 0 || m.DeliveryID == "" || m.EndpointID == 0 {
		return errors.New("message lacks account_id, delivery_id or endpoint_id")
	}
	log := logging.From(ctx).With("delivery_id", m.DeliveryID, "event_id", m.EventID, "account_id", m.AccountID, "endpoint_id", m.EndpointID)

	// The endpoint first: a fault reading it leaves the message to SQS,
	// nothing claimed.
	ep, gone, err := d.endpoint(ctx, m)
	if err != nil {
		return err
	}
	// The claim is the point of no return: after it, the message is
	// acknowledged whatever happens. Check the time before it.
	if gone == nil && !d.hasTime(ctx) {
		return errNoTime
	}
	att, claimed, err := d.claim(ctx, m, ep, log)
	if err != nil || !claimed {
		return err
	}
	if gone != nil {
		att.Error = gone.Error()
	} else {
		d.post(ctx, ep, &att)
	}
	return d.record(ctx, att, log)
}

// endpoint reads the message's endpoint; gone says why it no longer takes
// the message (deleted, deactivated, unsubscribed), err is a fault.
func (d *Deliverer) endpoint(ctx context.Context, m Message) (ep domain.Endpoint, gone, err error) {
	ep, err = d.Store.Endpoint(ctx, m.AccountID, m.EndpointID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return ep, errors.New("endpoint deleted before delivery"), nil
	case err != nil:
		return ep, nil, fmt.Errorf("read endpoint: %w", err)
	case !ep.Active:
		return ep, errors.New("endpoint deactivated before delivery"), nil
	case !ep.Accepts(m.Event.EventType):
		// Spec 6: an endpoint receives only the events it subscribes to
		// (and the pings sent to it).
		return ep, fmt.Errorf("endpoint unsubscribed from %s before delivery", m.Event.EventType), nil
	}
	return ep, nil, nil
}

// claim claims the message's attempt; claimed is false when there is
// nothing more to do (claimed already, or interrupted earlier and now
// recorded failed).
func (d *Deliverer) claim(ctx context.Context, m Message, ep domain.Endpoint, log *slog.Logger) (att domain.Delivery, claimed bool, err error) {
	body, err := m.payload()
	if err != nil {
		return att, false, err
	}
	// A recorded attempt is claimed as recorded, its own bytes posted.
	var status domain.DeliveryStatus
	if m.recorded() {
		status = domain.DeliveryQueued
	}
	now := d.Clock.Now()
	att, claim, err := d.Store.ClaimDelivery(ctx, domain.Delivery{
		AccountID: m.AccountID, ID: m.DeliveryID, Attempt: m.Attempt, EndpointID: m.EndpointID,
		EventID: m.EventID, Event: m.Event, Payload: body, URL: ep.URL, Status: status, CreatedAt: now,
	}, now, d.lease())
	switch {
	case err != nil:
		return att, false, fmt.Errorf("claim: %w", err)
	case claim == domain.AlreadyClaimed:
		log.Info("duplicate delivery message: already claimed", "status", att.Status)
		return att, false, nil
	case claim == domain.Interrupted:
		log.Warn("delivery interrupted earlier: recorded failed, not posted again")
		d.Metrics.Put(map[string]any{"delivery_id": att.ID}, metrics.Value{Name: metrics.DeliveriesFailed, Unit: metrics.Count, Value: 1})
		return att, false, nil
	}
	return att, true, nil
}

// record completes the attempt, delivered or failed, records it, and
// counts and logs it.
func (d *Deliverer) record(ctx context.Context, att domain.Delivery, log *slog.Logger) error {
	done := d.Clock.Now()
	att.CompletedAt = &done
	if att.Error == "" && att.ResponseStatus >= 200 && att.ResponseStatus < 300 {
		att.Status = domain.DeliveryDelivered
	} else {
		att.Status = domain.DeliveryFailed
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := d.Store.FinishDelivery(rctx, att); err != nil {
		// The POST happened (or not) and cannot be recorded: leave the
		// message to SQS; its next receive, after the lease, records the
		// attempt interrupted.
		return fmt.Errorf("record result: %w", err)
	}
	failed := 0.0
	if att.Status == domain.DeliveryFailed {
		failed = 1
	}
	d.Metrics.Put(map[string]any{"delivery_id": att.ID, "endpoint_id": att.EndpointID},
		metrics.Value{Name: metrics.DeliveriesDelivered, Unit: metrics.Count, Value: 1 - failed},
		metrics.Value{Name: metrics.DeliveriesFailed, Unit: metrics.Count, Value: failed},
		metrics.Value{Name: metrics.DeliveryDuration, Unit: metrics.Milliseconds, Value: float64(att.DurationMS)})
	log.Info("delivery", "status", att.Status, "response_status", att.ResponseStatus, "duration_ms", att.DurationMS, "error", att.Error, "attempt", att.Attempt)
	return nil
}

// post signs and sends the attempt, recording status, body, error and time.
func (d *Deliverer) post(ctx context.Context, ep domain.Endpoint, att *domain.Delivery) {
	// The stored bytes: a redelivery posts what the first attempt did.
	body := att.Payload
	if len(body) == 0 {
		att.Error = "no payload recorded for this attempt"
		return
	}
	sent := d.Clock.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		att.Error = "bad endpoint url: " + err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(webhooks.SignatureHeader, Signature(ep.SigningSecrets(sent), body))
	req.Header.Set(HeaderDeliveryID, att.ID)
	req.Header.Set(HeaderEventID, att.EventID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(sent.Unix(), 10))

	start := time.Now()
	resp, err := d.Client.Do(req)
	if err != nil {
		att.DurationMS = time.Since(start).Milliseconds()
		att.Error = err.Error()
		return
	}
	defer resp.Body.Close()
	// A read cut short keeps what arrived: the answer is a record, not data.
	got, truncated, _ := capped.Read(resp.Body, MaxRecordedBody)
	att.DurationMS = time.Since(start).Milliseconds()
	att.ResponseStatus = resp.StatusCode
	att.ResponseBody = recorded(got, truncated)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		att.Error = "receiver answered " + resp.Status
	}
}

// Signature is X-Service-Signature's value: one "sha256=<hex>" per secret,
// comma-separated, the current secret first. Outside a rotation there is
// one secret and so exactly the spec's single value.
func Signature(secrets []string, body []byte) string {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sigs = append(sigs, webhooks.Sign([]byte(s), body))
	}
	return strings.Join(sigs, ", ")
}

// truncatedMark ends a recorded answer that was cut.
const truncatedMark = "…[truncated]"

// recorded is a receiver's answer as kept: valid UTF-8 of at most
// MaxRecordedBody bytes, mark included. b is the answer read up to
// MaxRecordedBody bytes (capped.Read); one that was longer, or
// grows past the cap once invalid bytes are replaced, ends with
// truncatedMark, cut at a character boundary.
func recorded(b []byte, truncated bool) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if !truncated && len(s) <= MaxRecordedBody {
		return s
	}
	// Replacing invalid bytes changes the length: cut s itself.
	keep := min(len(s), MaxRecordedBody-len(truncatedMark))
	for keep > 0 && keep < len(s) && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + truncatedMark
}
