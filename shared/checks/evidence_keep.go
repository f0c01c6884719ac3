package checks

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// BlobPutter writes an object of the evidence blob store (blob.S3 on AWS,
// blob.Dir locally).
type BlobPutter interface {
	Put(ctx context.Context, key string, body []byte) error
}

// KeepEvidence makes ev, the evidence of check ev.CheckID in account
// ev.AccountID, ready for the store: a body over domain.MaxInlineEvidence
// is written to blobs under its content-addressed key
// (domain.EvidenceObjectKey) and leaves the evidence, which keeps the key.
// A smaller body, or one not kept, is left as it is.
//
// The object is written before the transaction that writes the check and
// its evidence item: S3 cannot join a DynamoDB transaction. A transaction
// that then fails leaves an orphan object, which is harmless (no item
// names it; a retry writes the same key with the same bytes) and expires
// with the bucket's lifecycle. With no blob store (nil) a large body is
// not kept, and the evidence says so.
func KeepEvidence(ctx context.Context, blobs BlobPutter, ev *domain.Evidence) error {
	if ev == nil || !ev.Stored || len(ev.Body) <= domain.MaxInlineEvidence || ev.BodyKey != "" {
		return nil
	}
	if blobs == nil {
		ev.Body, ev.Stored = nil, false
		ev.StoredReason = "the answer is larger than the 350 KB kept in the evidence table, and no evidence bucket is configured; its hash and size are recorded, its bytes are not"
		return nil
	}
	if ev.AccountID <= 0 || ev.CheckID <= 0 {
		return fmt.Errorf("keep evidence: account %d, check %d: a body's key needs both", ev.AccountID, ev.CheckID)
	}
	key := domain.EvidenceObjectKey(ev.AccountID, ev.CheckID, ev.SHA256)
	if err := blobs.Put(ctx, key, ev.Body); err != nil {
		return fmt.Errorf("keep evidence of check %d: %w", ev.CheckID, err)
	}
	ev.Body, ev.BodyKey = nil, key
	return nil
}
