package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Idempotency-Key replays: a create sent again with the same key and body
// gets the first one's answer; the key is kept for IdempotencyTTL.
const (
	IdempotencyTTL = 24 * time.Hour
	// idempotencyLock: an attempt that stops answering frees its key after
	// this, longer than any attempt can run (API Gateway gives up at 29 s).
	idempotencyLock = 30 * time.Second
)

// MaxIdempotencyKeyBytes bounds an Idempotency-Key header: it becomes part
// of a DynamoDB key, and no client needs more.
const MaxIdempotencyKeyBytes = 255

// ValidIdempotencyKey reports whether a sent Idempotency-Key can be used:
// 1 to MaxIdempotencyKeyBytes bytes of valid UTF-8, not blank. An absent
// header ("") is no key at all, which the caller tells apart before asking;
// here it is not a valid key. A refused key is
// 422 {"errors": {"idempotency_key": [...]}}, before any store call.
func ValidIdempotencyKey(key string) bool {
	return key != "" && len(key) <= MaxIdempotencyKeyBytes && utf8.ValidString(key) && strings.TrimSpace(key) != ""
}

// idempotent is a request's Idempotency-Key, claimed.
type idempotent struct{ key, hash string }

// serveIdempotent serves a create that carries an Idempotency-Key: it
// claims the key, replays the answer kept under it, or refuses a key that
// another request holds or used with another body.
func (c CreateEntity) serveIdempotent(w http.ResponseWriter, r *http.Request, p auth.Principal, body []byte, key string) error {
	if !ValidIdempotencyKey(key) {
		return domain.Invalid("idempotency_key", fmt.Sprintf("must be 1 to %d bytes of UTF-8, not blank", MaxIdempotencyKeyBytes))
	}
	hash := requestHash(r, body)
	rec, claimed, err := c.Store.BeginIdempotent(r.Context(), p.AccountID, key, hash, c.Clock.Now(), IdempotencyTTL, idempotencyLock)
	if err != nil {
		return err
	}
	if !claimed {
		switch {
		case rec.RequestHash != hash:
			return domain.Invalid("idempotency_key", "was already used with a different request")
		case rec.State == domain.IdempotencyCompleted:
			replay(w, r, rec, "idempotent replay")
			return nil
		default:
			w.Header().Set("Retry-After", "1")
			return domain.Errorf(domain.ECodeConflict, "A request with this Idempotency-Key is still being processed; retry shortly.")
		}
	}
	resp := c.create(r, p, body, &idempotent{key: key, hash: hash})
	if resp.contested {
		// An earlier attempt with this key whose answer was lost may have
		// committed meanwhile: its answer, not a refusal, is this one's.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), cleanupTimeout)
		rec, err := c.Store.IdempotencyRecord(ctx, p.AccountID, key, c.Clock.Now())
		cancel()
		if err == nil &&
			rec.State == domain.IdempotencyCompleted && rec.RequestHash == hash {
			replay(w, r, rec, "idempotent replay of an earlier attempt")
			return nil
		}
	}
	// Answers that a retry would get again are kept (a 201 with its entity,
	// in the same transaction); faults are not, so a retry with the same key
	// runs again; an unknown outcome keeps the key until its lock lapses,
	// when a retry finds the 201 if there was one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), cleanupTimeout)
	defer cancel()
	switch {
	case resp.stored, resp.unknown:
	case resp.status == http.StatusConflict:
		// "Retry shortly" is no answer to keep: the key belongs to the
		// attempt that took it over.
	case resp.status < 500:
		err = c.Store.CompleteIdempotent(ctx, p.AccountID, key, hash, resp.status, string(resp.body))
	default:
		err = c.Store.ReleaseIdempotent(ctx, p.AccountID, key, hash)
	}
	if err != nil {
		logging.From(r.Context()).Error("idempotency record not updated", "error", err.Error())
	}
	writeResponse(w, resp, false)
	return nil
}

// replay answers with the answer kept under a key.
func replay(w http.ResponseWriter, r *http.Request, rec domain.IdempotencyRecord, msg string) {
	logging.From(r.Context()).Info(msg, "status", rec.Status)
	writeResponse(w, response{status: rec.Status, body: []byte(rec.Body), location: locationOf(rec.Status, rec.Body)}, true)
}

// locationOf recovers a replayed 201's Location from its body.
func locationOf(status int, body string) string {
	if status != http.StatusCreated {
		return ""
	}
	var v struct {
		ID int64 `json:"id"`
	}
	if json.Unmarshal([]byte(body), &v) != nil || v.ID == 0 {
		return ""
	}
	return entityPath(v.ID)
}

// requestHash identifies a request for Idempotency-Key comparisons: the
// method, the path and the exact body.
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
