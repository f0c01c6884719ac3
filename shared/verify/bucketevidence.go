package verify

import (
	"context"
	"fmt"
	"path"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// bucketEvidence checks every evidence body of an account: each one's
// bytes hash to the SHA-256 its key names, no later version holds other
// bytes, and a check has one body. It returns how many bodies it read and
// findings with the account's new ones appended.
func bucketEvidence(ctx context.Context, r BucketReader, accountID int64, findings []Finding) (int, []Finding, error) {
	checks, err := numbered(ctx, r, fmt.Sprintf("evidence/%d/", accountID))
	if err != nil {
		return 0, findings, err
	}
	n := 0
	for _, c := range checks {
		keys, err := r.List(ctx, recordslayout.EvidencePrefix(accountID, c))
		if err != nil {
			return n, findings, fmt.Errorf("list the evidence of check %d: %w", c, err)
		}
		for i, key := range keys {
			obj, err := r.Get(ctx, key)
			if err != nil {
				return n, findings, fmt.Errorf("read %s: %w", key, err)
			}
			n++
			f := Finding{Key: key, VersionID: obj.VersionID, Locked: lockedDay(obj)}
			switch {
			case obj.SHA256 != path.Base(key):
				f.Kind = FindingEvidenceDiffers
				f.Message = fmt.Sprintf("the evidence body %s hashes to %s, not to the SHA-256 its key names", key, auditchain.Short(obj.SHA256))
			case len(obj.Rewritten) > 0:
				f.Kind = FindingRewrittenInBucket
				f.Message = fmt.Sprintf("the evidence body %s has %d later version(s) with other bytes", key, len(obj.Rewritten))
			case i > 0:
				f.Kind = FindingRewrittenInBucket
				f.Message = fmt.Sprintf("check %d has %d bodies (%s and %s): a check has one answer", c, len(keys), keys[0], key)
			default:
				continue
			}
			findings = append(findings, f)
		}
	}
	return n, findings, nil
}
