package receiver_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// A delivery as the service sends it: the raw JSON body, signed with the
// endpoint's secret in X-Service-Signature.
func signedDelivery(secret []byte, payload string, sentAt time.Time) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhooks/evs", strings.NewReader(payload))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(receiver.SignatureHeader, webhooks.Sign(secret, []byte(payload)))
	r.Header.Set(receiver.TimestampHeader, strconv.FormatInt(sentAt.Unix(), 10))
	r.Header.Set(receiver.DeliveryIDHeader, "dlv_01")
	return r
}

const approved = `{"event_type":"entity_review.approved","entity_review_id":156,"entity_id":150,"account_id":1,"outcome":"approved","occurred_at":"2026-11-20T12:00:00.000Z"}`

// A subscriber mounts Handler on its webhook route: it verifies each
// delivery over the raw body before decoding it, and answers 401 to one
// that does not verify.
func ExampleHandler() {
	now := time.Date(2026, 11, 20, 12, 0, 1, 0, time.UTC)
	v := &receiver.Verifier{
		Secrets:   [][]byte{[]byte("the endpoint's signing secret")},
		Tolerance: 5 * time.Minute,
		Now:       func() time.Time { return now }, // a fixed clock for the example; leave nil
		Log:       slog.New(slog.DiscardHandler),   // keep the example's output to its prints
	}
	h := receiver.Handler(v, func(_ context.Context, ev receiver.Event, deliveryID string) error {
		// Record the event and return at once; fetch the review's current
		// state later, idempotently on (EntityReviewID, EventType).
		fmt.Printf("%s: review %d (%s)\n", ev.EventType, ev.EntityReviewID, deliveryID)
		return nil
	})

	w := httptest.NewRecorder()
	h.ServeHTTP(w, signedDelivery([]byte("the endpoint's signing secret"), approved, now))
	fmt.Println(w.Code)

	w = httptest.NewRecorder()
	h.ServeHTTP(w, signedDelivery([]byte("someone else's secret"), approved, now))
	fmt.Println(w.Code)
	// Output:
	// entity_review.approved: review 156 (dlv_01)
	// 204
	// 401
}

// Verify checks a delivery's signature against the raw body, for a
// subscriber that reads requests its own way. During a secret rotation
// both secrets verify.
func ExampleVerifier_Verify() {
	now := time.Date(2026, 11, 20, 12, 0, 1, 0, time.UTC)
	v := &receiver.Verifier{
		Secrets: [][]byte{[]byte("new secret"), []byte("old secret")},
		Now:     func() time.Time { return now },
	}
	r := signedDelivery([]byte("old secret"), approved, now)
	fmt.Println(v.Verify(r.Header, []byte(approved)))

	// A body changed on the way no longer matches its signature.
	tampered := strings.Replace(approved, `"entity_review_id":156`, `"entity_review_id":157`, 1)
	fmt.Println(v.Verify(r.Header, []byte(tampered)))
	// Output:
	// <nil>
	// no signature matches the body
}
