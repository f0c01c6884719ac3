package receiver_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

var (
	body      = []byte(`{"event_type":"entity_review.approved","entity_review_id":156,"entity_id":150,"account_id":1,"outcome":"approved","occurred_at":"2026-11-20T12:00:00.000Z"}`)
	newSecret = []byte("whsec-new-0123456789")
	oldSecret = []byte("whsec-old-9876543210")
)

func TestVerify(t *testing.T) {
	now := time.Unix(1_790_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := webhooks.Sign(newSecret, body)
	byOld := webhooks.Sign(oldSecret, body)
	tampered := bytes.Replace(body, []byte("156"), []byte("157"), 1)

	tests := []struct {
		name    string
		secrets [][]byte
		headers map[string]string
		body    []byte
		at      time.Time // the verifier's clock
		want    error
	}{
		{"signed body", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good}, body, now, nil},
		{"one byte changed", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good}, tampered, now, receiver.ErrBadSignature},
		{"trailing newline added", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good}, append(bytes.Clone(body), '\n'), now, receiver.ErrBadSignature},
		{"wrong secret", [][]byte{oldSecret}, map[string]string{"X-Service-Signature": good}, body, now, receiver.ErrBadSignature},
		{"rotation: both signatures, receiver has the new secret", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good + "," + byOld}, body, now, nil},
		{"rotation: both signatures, receiver has the old secret", [][]byte{oldSecret}, map[string]string{"X-Service-Signature": good + ", " + byOld}, body, now, nil},
		{"rotation: receiver holds both, one signature", [][]byte{newSecret, oldSecret}, map[string]string{"X-Service-Signature": byOld}, body, now, nil},
		{"upper-case hex", [][]byte{newSecret}, map[string]string{"X-Service-Signature": "sha256=" + strings.ToUpper(good[7:])}, body, now, nil},
		{"bare hex without sha256=", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good[7:]}, body, now, receiver.ErrBadSignature},
		{"other algorithm", [][]byte{newSecret}, map[string]string{"X-Service-Signature": "sha1=" + good[7:]}, body, now, receiver.ErrBadSignature},
		{"truncated digest", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good[:len(good)-2]}, body, now, receiver.ErrBadSignature},
		{"garbage", [][]byte{newSecret}, map[string]string{"X-Service-Signature": "sha256=zz,,sha256="}, body, now, receiver.ErrBadSignature},
		{"missing header", [][]byte{newSecret}, nil, body, now, receiver.ErrMissingSignature},
		{"no secret", nil, map[string]string{"X-Service-Signature": good}, body, now, receiver.ErrNoSecret},
		{"empty secret fails closed", [][]byte{{}}, map[string]string{"X-Service-Signature": webhooks.Sign(nil, body)}, body, now, receiver.ErrNoSecret},
		{"fresh timestamp", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good, "X-Service-Timestamp": ts}, body, now.Add(4 * time.Minute), nil},
		{"stale timestamp", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good, "X-Service-Timestamp": ts}, body, now.Add(6 * time.Minute), receiver.ErrStaleTimestamp},
		{"timestamp from the future", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good, "X-Service-Timestamp": ts}, body, now.Add(-6 * time.Minute), receiver.ErrStaleTimestamp},
		{"timestamp in milliseconds", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good, "X-Service-Timestamp": ts + "000"}, body, now, receiver.ErrStaleTimestamp},
		{"bad timestamp", [][]byte{newSecret}, map[string]string{"X-Service-Signature": good, "X-Service-Timestamp": "yesterday"}, body, now, receiver.ErrBadTimestamp},
		{"bad signature is reported before the timestamp", [][]byte{newSecret}, map[string]string{"X-Service-Signature": byOld, "X-Service-Timestamp": "yesterday"}, body, now, receiver.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			v := &receiver.Verifier{Secrets: tt.secrets, Tolerance: 5 * time.Minute, Now: func() time.Time { return tt.at }}
			if err := v.Verify(h, tt.body); !errors.Is(err, tt.want) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}

	t.Run("repeated header lines", func(t *testing.T) {
		h := http.Header{}
		h.Add("X-Service-Signature", byOld)
		h.Add("X-Service-Signature", good)
		v := &receiver.Verifier{Secrets: [][]byte{newSecret}}
		if err := v.Verify(h, body); err != nil {
			t.Errorf("Verify = %v", err)
		}
	})
	t.Run("timestamp ignored without a tolerance", func(t *testing.T) {
		h := http.Header{}
		h.Set("X-Service-Signature", good)
		h.Set("X-Service-Timestamp", "1")
		v := &receiver.Verifier{Secrets: [][]byte{newSecret}}
		if err := v.Verify(h, body); err != nil {
			t.Errorf("Verify = %v", err)
		}
	})
}

func TestHandler(t *testing.T) {
	type call struct {
		ev         receiver.Event
		deliveryID string
	}
	tests := []struct {
		name       string
		method     string
		body       []byte
		signature  string
		fnErr      error
		wantStatus int
		wantCall   bool
		wantLog    string
	}{
		{"verified", http.MethodPost, body, webhooks.Sign(newSecret, body), nil, http.StatusNoContent, true, ""},
		{"unsigned", http.MethodPost, body, "", nil, http.StatusUnauthorized, false, "signature verification failed"},
		{"wrong secret", http.MethodPost, body, webhooks.Sign(oldSecret, body), nil, http.StatusUnauthorized, false, "no signature matches"},
		{"too large", http.MethodPost, bytes.Repeat([]byte("x"), 2048), webhooks.Sign(newSecret, bytes.Repeat([]byte("x"), 2048)), nil, http.StatusRequestEntityTooLarge, false, "body too large"},
		{"signed but not an event", http.MethodPost, []byte(`{"hello":1}`), webhooks.Sign(newSecret, []byte(`{"hello":1}`)), nil, http.StatusBadRequest, false, "not an event"},
		{"signed but not JSON", http.MethodPost, []byte(`nope`), webhooks.Sign(newSecret, []byte(`nope`)), nil, http.StatusBadRequest, false, "not an event"},
		{"the function fails", http.MethodPost, body, webhooks.Sign(newSecret, body), errors.New("queue down"), http.StatusInternalServerError, true, "queue down"},
		{"GET", http.MethodGet, nil, "", nil, http.StatusMethodNotAllowed, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			var calls []call
			v := &receiver.Verifier{
				Secrets: [][]byte{newSecret},
				MaxBody: 1024,
				Log:     slog.New(slog.NewTextHandler(&logs, nil)),
			}
			h := receiver.Handler(v, func(ctx context.Context, ev receiver.Event, id string) error {
				calls = append(calls, call{ev, id})
				return tt.fnErr
			})
			req := httptest.NewRequest(tt.method, "/webhooks/evs", bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Service-Delivery-Id", "dlv_1")
			if tt.signature != "" {
				req.Header.Set("X-Service-Signature", tt.signature)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d (%s)", rec.Code, tt.wantStatus, rec.Body)
			}
			if (len(calls) == 1) != tt.wantCall || len(calls) > 1 {
				t.Fatalf("calls = %+v, want a call: %v", calls, tt.wantCall)
			}
			if tt.wantCall {
				c := calls[0]
				if c.deliveryID != "dlv_1" || c.ev.EventType != receiver.EventApproved || c.ev.EntityReviewID != 156 ||
					c.ev.EntityID != 150 || c.ev.AccountID != 1 || c.ev.Outcome == nil || *c.ev.Outcome != "approved" ||
					c.ev.OccurredAt != "2026-11-20T12:00:00.000Z" {
					t.Errorf("call = %+v", c)
				}
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log = %q, want it to mention %q", logs.String(), tt.wantLog)
			}
			if tt.wantStatus == http.StatusUnauthorized && !strings.Contains(logs.String(), "dlv_1") {
				t.Errorf("the refusal's log line lacks the delivery id: %q", logs.String())
			}
		})
	}

	t.Run("too large without a Content-Length", func(t *testing.T) {
		v := &receiver.Verifier{Secrets: [][]byte{newSecret}, MaxBody: 16, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		h := receiver.Handler(v, func(context.Context, receiver.Event, string) error { return nil })
		req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(strings.Repeat("x", 64))))
		req.ContentLength = -1
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("status = %d, want 413", rec.Code)
		}
	})

	t.Run("a ping", func(t *testing.T) {
		b := []byte(`{"event_type":"ping","endpoint_id":7,"account_id":3,"occurred_at":"2026-11-20T12:00:00.000Z"}`)
		var got receiver.Event
		v := &receiver.Verifier{Secrets: [][]byte{newSecret}}
		h := receiver.Handler(v, func(_ context.Context, ev receiver.Event, _ string) error { got = ev; return nil })
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b))
		req.Header.Set("X-Service-Signature", webhooks.Sign(newSecret, b))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		want := receiver.Event{EventType: receiver.EventPing, EndpointID: 7, AccountID: 3, OccurredAt: "2026-11-20T12:00:00.000Z"}
		if rec.Code != http.StatusNoContent || got != want {
			t.Errorf("status %d, event %+v, want %+v", rec.Code, got, want)
		}
	})

	t.Run("a null outcome", func(t *testing.T) {
		b := []byte(`{"event_type":"entity_review.assigned","entity_review_id":1,"entity_id":2,"account_id":3,"outcome":null,"occurred_at":"2026-11-20T12:00:00.000Z","new_field":true}`)
		var got receiver.Event
		v := &receiver.Verifier{Secrets: [][]byte{newSecret}}
		h := receiver.Handler(v, func(_ context.Context, ev receiver.Event, _ string) error { got = ev; return nil })
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b))
		req.Header.Set("X-Service-Signature", webhooks.Sign(newSecret, b))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNoContent || got.EventType != receiver.EventAssigned || got.Outcome != nil {
			t.Errorf("status %d, event %+v", rec.Code, got)
		}
	})
}
