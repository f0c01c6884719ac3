package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Evidence is what a provider sent for a check, exactly as received: the
// bytes of the answer and how they came (who, which request, when, with
// which HTTP status). The request's URL never carries credentials.
type Evidence struct {
	AccountID int64
	CheckID   int64
	Provider  string
	// Method and URL name the request that brought the answer (for a
	// webhook, our own endpoint that received it).
	Method     string
	URL        string
	ReceivedAt time.Time
	HTTPStatus int
	// SHA256 is the lower-case hex SHA-256 of Body, computed when received.
	SHA256 string
	Size   int
	Body   []byte
	// Stored is false, with StoredReason, when the body is not kept.
	Stored       bool
	StoredReason string
}

// MaxStoredEvidence is the largest body kept: a DynamoDB item holds 400 KB
// with its attributes, and no body is ever cut short. A larger answer keeps
// its hash, size and metadata in the check's result, with stored false and
// the reason.
const MaxStoredEvidence = 350 << 10

// NewEvidence records body as received now, its hash and size computed
// over exactly these bytes.
func NewEvidence(provider, method, url string, status int, body []byte, at time.Time) *Evidence {
	sum := sha256.Sum256(body)
	e := &Evidence{
		Provider: provider, Method: method, URL: url, HTTPStatus: status,
		ReceivedAt: at.UTC(), SHA256: hex.EncodeToString(sum[:]), Size: len(body),
		Body: append([]byte(nil), body...), Stored: true,
	}
	if len(body) > MaxStoredEvidence {
		e.Body, e.Stored = nil, false
		e.StoredReason = "the answer is larger than the 350 KB kept in the evidence table; its hash and size are recorded, its bytes are not"
	}
	return e
}

// Verify reports whether Body still hashes to SHA256 and has Size bytes.
func (e Evidence) Verify() (ok bool, got string) {
	sum := sha256.Sum256(e.Body)
	got = hex.EncodeToString(sum[:])
	return got == e.SHA256 && len(e.Body) == e.Size, got
}

// ResultMap is the evidence as a check's result shows it: the metadata and
// the hash, never the body.
func (e Evidence) ResultMap() map[string]any {
	m := map[string]any{
		"provider":    e.Provider,
		"request":     map[string]any{"method": e.Method, "url": e.URL},
		"received_at": FormatTime(e.ReceivedAt),
		"http_status": e.HTTPStatus,
		"sha256":      e.SHA256,
		"size":        e.Size,
		"stored":      e.Stored,
	}
	if e.StoredReason != "" {
		m["stored_reason"] = e.StoredReason
	}
	return m
}
