package checks

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/domain"
)

// keptItems answers the evidence items kept, as the evidence table would
// by key (the store's own reads are tested on DynamoDB Local).
type keptItems map[int64]domain.Evidence

func (k keptItems) Evidence(_ context.Context, _, checkID int64) (domain.Evidence, error) {
	ev, ok := k[checkID]
	if !ok {
		return domain.Evidence{}, domain.Errorf(domain.ECodeNotFound, "Evidence of check %d not found.", checkID)
	}
	return ev, nil
}

// TestReadEvidence: what KeepEvidence kept reads back whole, in the item
// or from the blob store; a body's object gone, or no evidence kept, is
// not_found; a body in the bucket with no blob store is an error.
func TestReadEvidence(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dir := blob.Dir{Root: t.TempDir()}
	small := []byte(`{"responses":{}}`)
	large := bytes.Repeat([]byte("x"), domain.MaxInlineEvidence+1)
	items := keptItems{}
	for id, body := range map[int64][]byte{1: small, 2: large, 3: large} {
		ev := domain.NewEvidence("opensanctions", "POST", "http://yente.test/match", 200, body, at)
		ev.AccountID, ev.CheckID = 7, id
		if err := KeepEvidence(ctx, dir, ev); err != nil {
			t.Fatal(err)
		}
		items[id] = *ev
	}
	if err := dir.Delete(ctx, items[3].BodyKey); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		check    int64
		blobs    BlobGetter
		want     []byte
		notFound bool
		fails    bool
	}{
		{name: "inline", check: 1, blobs: dir, want: small},
		{name: "inline, no blob store needed", check: 1, want: small},
		{name: "an object", check: 2, blobs: dir, want: large},
		{name: "an object, no blob store", check: 2, fails: true},
		{name: "an object gone", check: 3, blobs: dir, notFound: true},
		{name: "nothing kept", check: 4, blobs: dir, notFound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ReadEvidence(ctx, items, tc.blobs, 7, tc.check)
			switch {
			case tc.notFound:
				if domain.ErrorCode(err) != domain.ECodeNotFound {
					t.Fatalf("err %v, want not_found", err)
				}
			case tc.fails:
				if domain.ErrorCode(err) != domain.ECodeInternal {
					t.Fatalf("err %v, want a fault", err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if ok, _ := ev.Verify(); !ok || !bytes.Equal(ev.Body, tc.want) {
					t.Errorf("body of %d bytes, verified %v", len(ev.Body), ok)
				}
			}
		})
	}
}
