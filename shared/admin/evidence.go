package admin

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// EvidenceView is a check's kept provider answer: the bytes as received
// (base64, as a JSON document cannot hold arbitrary bytes), how they came,
// the hash recorded on receipt and whether the bytes still hash to it.
type EvidenceView struct {
	AccountID  int64           `json:"account_id"`
	CheckID    int64           `json:"check_id"`
	Provider   string          `json:"provider"`
	Request    EvidenceRequest `json:"request"`
	ReceivedAt string          `json:"received_at"`
	HTTPStatus int             `json:"http_status"`
	SHA256     string          `json:"sha256"`
	Size       int             `json:"size"`
	// BodyKey is where the body is kept when not in the evidence item: its
	// object's key in the evidence bucket (bodies over 350 KB).
	BodyKey    string `json:"body_key,omitempty"`
	BodyBase64 string `json:"body_base64"`
	// Verified says whether the stored bytes hash to SHA256 with Size
	// bytes; ComputedSHA256 is their hash now.
	Verified       bool   `json:"verified"`
	ComputedSHA256 string `json:"computed_sha256"`
	// CheckSHA256 and CheckSize are the hash and size the check's own result
	// recorded (another table, written in the same transaction):
	// MatchesCheck says the evidence item agrees with them, so replacing
	// the body, hash and size in the evidence table together is caught too.
	CheckSHA256  string `json:"check_sha256"`
	CheckSize    int    `json:"check_size"`
	MatchesCheck bool   `json:"matches_check"`
	// Locked is the evidence against its locked bodies in the records
	// bucket: a body rewritten with its hash (and the check's) is named.
	Locked *LockedView `json:"locked"`
}

// EvidenceRequest is the request that brought the answer (its URL without
// credentials).
type EvidenceRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
}

// evidenceGet answers a check's kept provider answer, verified. A body that
// no longer verifies is answered, not refused (verified false): the
// operator sees what is stored and the command line fails on it.
func (h *Handler) evidenceGet(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"id"`
		CheckID   int64 `json:"check_id" strict:"id"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if p.CheckID <= 0 {
		return nil, domain.Invalid("check_id", "must be a positive check id")
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	ev, err := checks.ReadEvidence(ctx, h.Store, h.Blobs, p.AccountID, p.CheckID)
	if domain.ErrorCode(err) == domain.ECodeNotFound && ev.BodyKey == "" {
		if hint := domain.ShortIDHint(p.AccountID, p.CheckID); hint != "" {
			return nil, domain.Errorf(domain.ECodeNotFound, "Check %d not found in account %d%s.", p.CheckID, p.AccountID, hint)
		}
		return nil, h.evidenceGone(ctx, p.AccountID, p.CheckID, err)
	}
	if err != nil {
		return nil, err
	}
	ok, got := ev.Verify()
	chk, err := h.Store.Check(ctx, p.AccountID, p.CheckID)
	if err != nil {
		return nil, fmt.Errorf("evidence of check %d: the check: %w", p.CheckID, err)
	}
	recorded, _ := chk.Result["evidence"].(map[string]any)
	checkSum, _ := recorded["sha256"].(string)
	checkSize := wholeNumber(recorded["size"])
	locked, err := h.lockedEvidence(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("evidence of check %d: %w", p.CheckID, err)
	}
	return map[string]any{"evidence": EvidenceView{Locked: locked,
		CheckSHA256: checkSum, CheckSize: checkSize, MatchesCheck: checkSum == ev.SHA256 && checkSize == ev.Size,
		AccountID: ev.AccountID, CheckID: ev.CheckID, Provider: ev.Provider,
		Request:    EvidenceRequest{Method: ev.Method, URL: ev.URL},
		ReceivedAt: domain.FormatTime(ev.ReceivedAt), HTTPStatus: ev.HTTPStatus,
		SHA256: ev.SHA256, Size: ev.Size, BodyKey: ev.BodyKey, BodyBase64: base64.StdEncoding.EncodeToString(ev.Body),
		Verified: ok, ComputedSHA256: got,
	}}, nil
}

// wholeNumber reads a count from a result as stored (a float64 once read
// back, an int before); -1 when absent.
func wholeNumber(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	}
	return -1
}
