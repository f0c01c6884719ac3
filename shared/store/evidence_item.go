package store

import (
	"github.com/evs-kyb/evs/shared/domain"
)

// evidenceItem is a provider's answer as the evidence table stores it. The
// body is a binary attribute: the bytes as received, never re-encoded; or,
// for a body over domain.MaxInlineEvidence, no body and body_key, the key
// of its object in the evidence blob store.
type evidenceItem struct {
	AccountID  int64  `dynamo:"account_id,hash"`
	CheckID    int64  `dynamo:"check_id,range"`
	Provider   string `dynamo:"provider"`
	Method     string `dynamo:"method"`
	URL        string `dynamo:"url"`
	ReceivedAt string `dynamo:"received_at"`
	HTTPStatus int    `dynamo:"http_status"`
	SHA256     string `dynamo:"sha256"`
	Size       int    `dynamo:"size"`
	Body       []byte `dynamo:"body,allowempty"`
	BodyKey    string `dynamo:"body_key,omitempty"`
	// The TTL (Unix seconds): none while the relationship lasts; the end
	// of its retention once it ended (retention.go).
	retainedFields
}

func newEvidenceItem(e domain.Evidence) evidenceItem {
	it := evidenceItem{
		AccountID: e.AccountID, CheckID: e.CheckID, Provider: e.Provider,
		Method: e.Method, URL: e.URL, ReceivedAt: fmtTime(e.ReceivedAt),
		HTTPStatus: e.HTTPStatus, SHA256: e.SHA256, Size: e.Size, Body: e.Body,
		// No expiry: nothing of an entity expires before its relationship
		// ends (end_relationship sets it then).
	}
	if e.BodyKey != "" {
		// Where the body is, never the body too: an item holds 400 KB.
		it.Body, it.BodyKey = nil, e.BodyKey
	}
	return it
}

func (it evidenceItem) domain() domain.Evidence {
	return domain.Evidence{
		AccountID: it.AccountID, CheckID: it.CheckID, Provider: it.Provider,
		Method: it.Method, URL: it.URL, ReceivedAt: parseTime(it.ReceivedAt),
		HTTPStatus: it.HTTPStatus, SHA256: it.SHA256, Size: it.Size, Body: it.Body,
		BodyKey: it.BodyKey, Stored: true,
	}
}
