package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	// BodyKey is where the body is kept when it is not in the evidence
	// item: the key of its object in the evidence blob store (a body over
	// MaxInlineEvidence). Empty for a body kept inline.
	BodyKey string
	// Stored is false, with StoredReason, when the body is not kept.
	Stored       bool
	StoredReason string
}

// MaxInlineEvidence is the largest body kept in the evidence item itself:
// a DynamoDB item holds 400 KB with its attributes. A larger body is kept
// as an object of the evidence blob store (S3 on AWS), the item holding
// its key (BodyKey).
const MaxInlineEvidence = 350 << 10

// MaxEvidence is the largest body kept at all: what the provider clients
// read of an answer (shared/checks), four times what a webhook may bring. A
// body is never cut short and kept: an answer that went on past this bound
// was never read whole, so only its first bytes' hash and size are
// recorded, with stored false and the reason.
const MaxEvidence = 4 << 20

// NewEvidence records body as received now, its hash and size computed
// over exactly these bytes. A body over MaxEvidence is the start of an
// answer whose reading stopped there (a client reads MaxEvidence+1 bytes at
// most): its hash and size are recorded, its bytes are not.
func NewEvidence(provider, method, url string, status int, body []byte, at time.Time) *Evidence {
	sum := sha256.Sum256(body)
	e := &Evidence{
		Provider: provider, Method: method, URL: url, HTTPStatus: status,
		ReceivedAt: at.UTC(), SHA256: hex.EncodeToString(sum[:]), Size: len(body),
		Body: append([]byte(nil), body...), Stored: true,
	}
	if len(body) > MaxEvidence {
		e.Body, e.Stored = nil, false
		e.StoredReason = fmt.Sprintf("the answer is larger than the %d MiB read of a provider's answer: reading stopped after %d bytes, "+
			"which sha256 and size are of; its bytes are not kept", MaxEvidence>>20, len(body))
	}
	return e
}

// EvidenceObjectKey is the blob store's key of a check's body:
// content-addressed by account, check and the body's SHA-256, so a retried
// write writes the same key with the same bytes, and a key names the bytes
// it must hold.
func EvidenceObjectKey(accountID, checkID int64, sha256Hex string) string {
	return fmt.Sprintf("evidence/%d/%d/%s", accountID, checkID, sha256Hex)
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
