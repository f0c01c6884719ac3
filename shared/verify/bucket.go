package verify

import (
	"context"
	"fmt"
	"sort"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// LockedChain checks a trail from the records bucket alone, as a
// regulator would (shared/records/README.md, "Verifying from the bucket
// alone"): every object under the chain's prefix, its first version, parsed
// from its canonical form; each one's SHA-256 is the next one's prev_hash
// and the seqs run 1, 2, 3… It needs no table and trusts nothing of the service:
// it returns the chain's records as locked, and the first break (nil when
// the locked trail holds).
func LockedChain(ctx context.Context, r Reader, accountID, entityID int64) ([]auditchain.Link, *auditchain.Break, error) {
	keys, err := r.List(ctx, recordslayout.ChainPrefix(accountID, entityID))
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", recordslayout.ChainPrefix(accountID, entityID), err)
	}
	links := make([]auditchain.Link, 0, len(keys))
	for _, key := range keys {
		obj, err := r.Get(ctx, key)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", key, err)
		}
		l, err := chainRecord(obj.Body, key, accountID, entityID)
		if err != nil {
			return links, &auditchain.Break{Reason: err.Error()}, nil
		}
		links = append(links, l)
	}
	sort.Slice(links, func(i, j int) bool { return links[i].Seq < links[j].Seq })
	last := auditchain.Head{Hash: auditchain.Genesis}
	if n := len(links); n > 0 {
		last = auditchain.Head{Seq: links[n-1].Seq, Hash: links[n-1].Hash, ActionID: links[n-1].ActionID}
	}
	// The last object is the head as far as the bucket knows: a removed
	// tail would show against a manifest, but nothing in compliance mode
	// can be removed before its date.
	return links, auditchain.Verify(links, last, nil), nil
}
