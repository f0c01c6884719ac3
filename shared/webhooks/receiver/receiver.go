// Package receiver is the subscriber's side of the Entity Verification
// Service's webhooks: it verifies the X-Service-Signature of a delivery over
// the raw body, then decodes the event. It depends on the standard library
// alone, so a subscriber can import it or copy this one file.
//
// Use:
//
//	v := &receiver.Verifier{
//		Secrets:   [][]byte{[]byte(os.Getenv("EVS_WEBHOOK_SECRET"))},
//		Tolerance: 5 * time.Minute,
//	}
//	http.Handle("POST /webhooks/evs", receiver.Handler(v,
//		func(ctx context.Context, ev receiver.Event, deliveryID string) error {
//			if ev.EventType == receiver.EventPing {
//				return nil // a test event from the settings area
//			}
//			// Record the event and return at once: the service waits only a
//			// few seconds. Be idempotent on (ev.EntityReviewID, ev.EventType),
//			// and fetch GET /api/v1/entity_reviews/{id} for the current state.
//			return jobs.Enqueue(ctx, ev)
//		}))
//
// During a secret rotation list both secrets in Secrets; the service signs
// with both until the rotation ends.
package receiver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	// SignatureHeader is "sha256=<lowercase hex HMAC-SHA256 of the raw body>",
	// or several such values separated by commas during a secret rotation.
	SignatureHeader = "X-Service-Signature"
	// TimestampHeader, when sent, is the Unix time in seconds the delivery
	// was made. It is not signed; see Verifier.Tolerance.
	TimestampHeader = "X-Service-Timestamp"
	// DeliveryIDHeader, when sent, names the delivery attempt: a
	// redelivery of the same event has an id of its own. Log it; do not
	// de-duplicate on it.
	DeliveryIDHeader = "X-Service-Delivery-Id"
	// EventIDHeader, when sent, names the event: the same on every attempt,
	// so it is a key to de-duplicate on, like (entity_review_id, event_type).
	EventIDHeader = "X-Service-Event-Id"
)

// DefaultMaxBody is the largest body Handler reads when Verifier.MaxBody is
// not set. Events are a few hundred bytes.
const DefaultMaxBody = 64 << 10

// The event kinds of the service (spec section 6). Handle the ones you need
// and ignore the rest: new kinds may be added.
const (
	EventApproved       = "entity_review.approved"
	EventRejected       = "entity_review.rejected"
	EventEscalated      = "entity_review.escalated"
	EventEscalatedToAML = "entity_review.escalated_to_aml"
	EventAssigned       = "entity_review.assigned"
	EventChecksQueued   = "entity_review.checks_queued"
	// EventPing is a test event someone sent this endpoint from the
	// service's settings area, signed like the others: it names the
	// endpoint (EndpointID) and no review. Answer it 2xx; there is nothing
	// to fetch.
	EventPing = "ping"
)

// Verification failures. The messages are safe to log.
var (
	ErrNoSecret         = errors.New("no signing secret is configured")
	ErrMissingSignature = errors.New("the " + SignatureHeader + " header is missing")
	ErrBadSignature     = errors.New("no signature matches the body")
	ErrBadTimestamp     = errors.New("the " + TimestampHeader + " header is not a Unix time in seconds")
	ErrStaleTimestamp   = errors.New("the " + TimestampHeader + " header is too far from the current time")
)

// Event is the body of a delivery. It carries no state of the entity: fetch
// GET /api/v1/entity_reviews/{EntityReviewID} for that. A ping (EventPing)
// carries EndpointID, AccountID and OccurredAt alone.
type Event struct {
	EventType      string  `json:"event_type"`
	EntityReviewID int64   `json:"entity_review_id"`
	EntityID       int64   `json:"entity_id"`
	AccountID      int64   `json:"account_id"`
	Outcome        *string `json:"outcome"` // the review's outcome once completed (approved, rejected); null otherwise
	OccurredAt     string  `json:"occurred_at"`
	// EndpointID is set on a ping: the endpoint it tests.
	EndpointID int64 `json:"endpoint_id,omitempty"`
}

// Verifier checks deliveries. Its zero value refuses everything (no secret).
type Verifier struct {
	// Secrets are the endpoint's signing secrets; a signature made with any
	// of them verifies. Hold the old and the new one during a rotation.
	// Empty secrets are ignored, so an unset environment variable fails
	// closed instead of verifying bodies signed with an empty key.
	Secrets [][]byte

	// Tolerance, when positive, bounds how far an X-Service-Timestamp header
	// may be from Now. A delivery without the header is not refused.
	//
	// This is a weak check, and it is honest to say how weak. The scheme
	// signs the body alone, so the header is not authenticated: whoever
	// captured a delivery can replay it with a fresh timestamp, or with
	// none. It stops only replays or delays that keep the original headers
	// (a stuck queue or proxy, a naive capture-and-resend) and shows up a
	// wrong clock. What the signature does cover is the body's occurred_at,
	// but that is when the review changed, not when the delivery was sent: a
	// failed delivery that an operator sends again days later legitimately
	// carries the old occurred_at, so bounding it would refuse genuine
	// redeliveries. The real defence against replays is the one the service
	// asks of every receiver anyway: be idempotent on (entity_review_id,
	// event_type) and treat an event as a prompt to fetch the current state.
	// A replayed event then changes nothing.
	Tolerance time.Duration

	// Now is the clock for Tolerance; time.Now when nil.
	Now func() time.Time

	// MaxBody is the largest body Handler accepts, in bytes; DefaultMaxBody
	// when zero or less. A larger one is answered 413.
	MaxBody int64

	// Log is where Handler logs the deliveries it refuses and the errors of
	// its callback; slog.Default() when nil.
	Log *slog.Logger
}

// Verify checks a delivery's headers against its raw body, exactly as
// received: before any parsing, since re-serialising changes the bytes. The
// signature header may hold several comma-separated "sha256=<hex>" values
// (and may be repeated); one of them made with one of the secrets is
// enough. Comparisons are in constant time.
func (v *Verifier) Verify(header http.Header, body []byte) error {
	var macs [][]byte
	for _, s := range v.Secrets {
		if len(s) == 0 {
			continue
		}
		m := hmac.New(sha256.New, s)
		m.Write(body)
		macs = append(macs, m.Sum(nil))
	}
	if len(macs) == 0 {
		return ErrNoSecret
	}
	values := header.Values(SignatureHeader)
	if len(values) == 0 {
		return ErrMissingSignature
	}
	if !anySignatureMatches(values, macs) {
		return ErrBadSignature
	}
	if v.Tolerance > 0 {
		if ts := strings.TrimSpace(header.Get(TimestampHeader)); ts != "" {
			sec, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				return ErrBadTimestamp
			}
			now := time.Now
			if v.Now != nil {
				now = v.Now
			}
			if d := now().Sub(time.Unix(sec, 0)); d > v.Tolerance || d < -v.Tolerance {
				return ErrStaleTimestamp
			}
		}
	}
	return nil
}

// anySignatureMatches reports whether one of the "sha256=<hex>" values in
// the header lines equals one of the expected MACs.
func anySignatureMatches(lines []string, macs [][]byte) bool {
	for _, line := range lines {
		for _, part := range strings.Split(line, ",") {
			digest, ok := strings.CutPrefix(strings.TrimSpace(part), "sha256=")
			if !ok {
				continue // another scheme, or a future version: not ours to judge
			}
			sig, err := hex.DecodeString(digest)
			if err != nil || len(sig) != sha256.Size {
				continue
			}
			for _, mac := range macs {
				if hmac.Equal(sig, mac) {
					return true
				}
			}
		}
	}
	return false
}

// Handler serves deliveries: it reads the raw body (413 beyond MaxBody),
// verifies it before anything else (401, logged, when it does not verify),
// decodes the event (400 when it is not one) and calls fn with the request's
// context and the delivery id ("" when the header is absent). It answers 204
// when fn returns nil and 500 when it fails.
//
// The service counts any 2xx as delivered and never retries on its own: a
// delivery answered 500, or not answered within its timeout, stays failed
// until someone redelivers it. So fn should record the event durably and
// return quickly, doing the work asynchronously, and the subscriber should
// reconcile periodically against GET /api/v1/entities (spec section 6).
func Handler(v *Verifier, fn func(ctx context.Context, ev Event, deliveryID string) error) http.Handler {
	if v == nil || fn == nil {
		panic("receiver.Handler: a Verifier and a function are required")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := v.Log
		if log == nil {
			log = slog.Default()
		}
		deliveryID := r.Header.Get(DeliveryIDHeader)
		attrs := []any{"delivery_id", clip(deliveryID), "remote_addr", r.RemoteAddr}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		limit := v.MaxBody
		if limit <= 0 {
			limit = DefaultMaxBody
		}
		if r.ContentLength > limit {
			log.Warn("webhook refused: body too large", append(attrs, "content_length", r.ContentLength, "limit", limit)...)
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				log.Warn("webhook refused: body too large", append(attrs, "limit", limit)...)
				http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
				return
			}
			log.Warn("webhook refused: body unreadable", append(attrs, "error", err.Error())...)
			http.Error(w, "could not read the body", http.StatusBadRequest)
			return
		}
		if err := v.Verify(r.Header, body); err != nil {
			// The reason is logged, not returned: a caller without the
			// secret learns nothing from the answer.
			log.Warn("webhook refused: signature verification failed", append(attrs, "reason", err.Error())...)
			http.Error(w, "signature verification failed", http.StatusUnauthorized)
			return
		}
		ev, err := decode(body)
		if err != nil {
			log.Warn("webhook refused: not an event", append(attrs, "error", err.Error())...)
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		if err := fn(r.Context(), ev, deliveryID); err != nil {
			log.Error("webhook handling failed", append(attrs, "event_type", ev.EventType, "entity_review_id", ev.EntityReviewID, "error", err.Error())...)
			http.Error(w, "could not handle the event", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// decode reads a verified body as an Event. Unknown fields are accepted, so
// the service can add fields without breaking receivers.
func decode(body []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if ev.EventType == "" {
		return Event{}, errors.New("decode event: event_type is missing")
	}
	return ev, nil
}

// clip keeps an unauthenticated header value short enough to log.
func clip(s string) string {
	const max = 128
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
