package verify

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// Evidence checks a check's evidence as DynamoDB holds it against
// its locked body: a check has one answer, so the body locked first is the
// one received, and DynamoDB's recorded hash must be its hash. A body
// locked after it is a rewrite that came down the stream (the exporter
// refuses those; one there anyway is named too). No finding and locked
// false: nothing locked yet.
func Evidence(ctx context.Context, r Reader, e domain.Evidence) (locked bool, findings []Finding, err error) {
	keys, err := r.List(ctx, recordslayout.EvidencePrefix(e.AccountID, e.CheckID))
	if err != nil {
		return false, nil, fmt.Errorf("list the locked evidence of check %d: %w", e.CheckID, err)
	}
	if len(keys) == 0 {
		return false, nil, nil
	}
	var first Finding
	var firstAt time.Time
	for _, key := range keys {
		obj, err := r.Get(ctx, key)
		if err != nil {
			return true, findings, fmt.Errorf("read locked evidence %s: %w", key, err)
		}
		f := Finding{Key: key, VersionID: obj.VersionID, Locked: lockedDay(obj)}
		if len(obj.Rewritten) > 0 {
			w := f
			w.Kind = FindingRewrittenInBucket
			w.Message = fmt.Sprintf("the locked evidence %s has %d later version(s) with other bytes", key, len(obj.Rewritten))
			findings = append(findings, w)
		}
		// The key names the bytes: an oldest version that does not hash to
		// it was written in place of the record, its own version gone once
		// its lock ran out.
		if named := path.Base(key); obj.SHA256 != named {
			w := f
			w.Kind = FindingRewrittenInBucket
			w.Message = fmt.Sprintf("the oldest version of the locked evidence %s hashes to %s, not to the SHA-256 its key names: other bytes stand in for the record",
				key, auditchain.Short(obj.SHA256))
			findings = append(findings, w)
		}
		at := time.Time{}
		if len(obj.Versions) > 0 {
			at = obj.Versions[0].LastModified
		}
		if first.Key == "" || at.Before(firstAt) {
			first, firstAt = f, at
		}
	}
	for _, key := range keys {
		if key != first.Key {
			findings = append(findings, Finding{Kind: FindingRewrittenInBucket, Key: key,
				Message: fmt.Sprintf("check %d has a second body locked (%s) after the first (%s): a rewrite", e.CheckID, key, first.Key)})
		}
	}
	if want := recordslayout.EvidenceKey(e.AccountID, e.CheckID, e.SHA256); first.Key != want {
		f := first
		f.Kind = FindingEvidenceNotLocked
		f.Message = fmt.Sprintf("check %d's evidence in DynamoDB has SHA-256 %s, but the body locked on receipt is %s (locked %s): the evidence was rewritten with its hash",
			e.CheckID, auditchain.Short(e.SHA256), first.Key, first.Locked)
		findings = append(findings, f)
	}
	return true, findings, nil
}
