package checks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/evs-kyb/evs/shared/domain"
)

// EvidenceItems reads a check's evidence item (*store.Store has it);
// not_found when nothing is kept for the check.
type EvidenceItems interface {
	Evidence(ctx context.Context, accountID, checkID int64) (domain.Evidence, error)
}

// BlobGetter reads an object of the evidence blob store (blob.S3 on AWS,
// blob.Dir locally); a key that holds nothing is an error that is
// fs.ErrNotExist.
type BlobGetter interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// ReadEvidence is KeepEvidence read back: the evidence of a check with its
// body, wherever the body was kept (in the item, or as an object of blobs
// when over domain.MaxInlineEvidence). The body is not verified here
// (domain.Evidence.Verify): a reader shows a body that no longer hashes
// to its record, and says so.
//
// Codes: not_found when no evidence is kept for the check, or when its
// body's object is missing from the blob store.
func ReadEvidence(ctx context.Context, items EvidenceItems, blobs BlobGetter, accountID, checkID int64) (domain.Evidence, error) {
	ev, err := items.Evidence(ctx, accountID, checkID)
	if err != nil || ev.BodyKey == "" {
		return ev, err
	}
	if blobs == nil {
		return ev, fmt.Errorf("evidence of check %d: its body is in the evidence bucket (%s), and no blob store is configured", checkID, ev.BodyKey)
	}
	body, err := blobs.Get(ctx, ev.BodyKey)
	if errors.Is(err, fs.ErrNotExist) {
		return ev, domain.Errorf(domain.ECodeNotFound, "The body of check %d's evidence is missing from the evidence bucket (%s).", checkID, ev.BodyKey)
	}
	if err != nil {
		return ev, fmt.Errorf("evidence of check %d: %w", checkID, err)
	}
	ev.Body = body
	return ev, nil
}
