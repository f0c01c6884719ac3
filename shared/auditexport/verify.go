package auditexport

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
)

// Reader reads the records bucket (records.S3, records.Dir): an object's
// first version with every later one, and the keys under a prefix.
type Reader interface {
	Get(ctx context.Context, key string) (records.Object, error)
	List(ctx context.Context, prefix string) ([]string, error)
}

// Finding kinds: what a comparison with the locked copies found.
const (
	// FindingMissing: a locked record is not in DynamoDB (removed).
	FindingMissing = "missing"
	// FindingDiffers: a record in DynamoDB differs from its locked copy.
	FindingDiffers = "differs"
	// FindingHeadBehind: the head is before the last locked record (the
	// tail removed, the head set to match).
	FindingHeadBehind = "head_behind"
	// FindingRewrittenInBucket: someone wrote other bytes under a locked
	// key; the lock kept the first version, which is the one compared.
	FindingRewrittenInBucket = "rewritten_in_bucket"
	// FindingUnreadable: a locked object that is no record.
	FindingUnreadable = "unreadable"
	// FindingEvidenceNotLocked: DynamoDB's hash of a check's evidence is
	// not among its locked bodies' (the evidence rewritten with its hash).
	FindingEvidenceNotLocked = "evidence_not_locked"
	// FindingClosureNotBelieved: the trail's locked closure record is not
	// signed as its account requires (Closures): it excuses no removal.
	FindingClosureNotBelieved = "closure_not_believed"
)

// Finding is one contradiction between DynamoDB and the locked copies.
type Finding struct {
	Kind     string `json:"kind"`
	Seq      int64  `json:"seq,omitempty"`
	ActionID string `json:"action_id,omitempty"`
	// Key and VersionID name the locked object that contradicts DynamoDB,
	// Locked the day it was written (UTC).
	Key       string `json:"key"`
	VersionID string `json:"version_id,omitempty"`
	Locked    string `json:"locked,omitempty"`
	Message   string `json:"message"`
}

// ChainComparison is a chain against its locked copies.
type ChainComparison struct {
	// Locked is how many of the chain's records have a locked copy, and
	// LockedThrough the highest seq among them.
	Locked        int `json:"locked"`
	LockedThrough int64
	// NotYetLocked are DynamoDB's records after the last locked one: the
	// streams lock a record within a minute of its commit.
	NotYetLocked int       `json:"not_yet_locked"`
	Findings     []Finding `json:"findings"`
	// Expired counts the locked records gone from DynamoDB under
	// retention: the entity's relationship ended, its retention ran out
	// on ExpiredOn (the date its locked closure record names, in Closure)
	// and no legal hold stands. Gone, they are no finding.
	Expired   int    `json:"expired,omitempty"`
	ExpiredOn string `json:"expired_on,omitempty"`
	Closure   string `json:"closure,omitempty"`
}

// Retention is what tells a record expired under retention from one
// removed: the time of the check, whether a legal hold stands, and which
// closure records are believed.
type Retention struct {
	Now      time.Time
	Held     bool
	Closures Closures
}

// CompareChain checks a chain as DynamoDB holds it against its locked
// copies: every locked record must be in DynamoDB, the same; the head may
// not be before the last locked record. A trail removed from DynamoDB
// whole, or rewritten with its hashes and head recomputed, is named by
// the first locked record it contradicts. A record missing once the
// retention its locked closure record names has run out (and no hold
// stands) expired, TTL removing it: counted, not a finding; missing before,
// it was removed.
func CompareChain(ctx context.Context, r Reader, c auditchain.Chain, ret Retention) (ChainComparison, error) {
	cmp := ChainComparison{Findings: []Finding{}}
	keys, err := r.List(ctx, ChainPrefix(c.AccountID, c.EntityID))
	if err != nil {
		return cmp, fmt.Errorf("list the locked copies of chain %d: %w", c.EntityID, err)
	}
	inDynamo := make(map[int64]auditchain.Link, len(c.Records))
	for _, l := range c.Records {
		inDynamo[l.Seq] = l
	}
	var last Finding
	var missing []Finding
	var until time.Time
	// A closure counts only within the locked trail's intact prefix: each
	// record hashing to its own hash, linked to the one before; the first
	// (a relationship ends once), and only if believed.
	intact, prev, closed := true, auditchain.Head{Hash: auditchain.Genesis}, false
	var unbelieved *Finding // named only when it would excuse a removal
	for _, key := range keys {
		obj, err := r.Get(ctx, key)
		if err != nil {
			return cmp, fmt.Errorf("read locked copy %s: %w", key, err)
		}
		at := lockedDay(obj)
		f := Finding{Key: key, VersionID: obj.VersionID, Locked: at}
		locked, err := chainRecord(obj.Body, key, c.AccountID, c.EntityID)
		if err != nil {
			f.Kind, f.Message = FindingUnreadable, err.Error()
			cmp.Findings = append(cmp.Findings, f)
			continue
		}
		cmp.Locked++
		cmp.LockedThrough = max(cmp.LockedThrough, locked.Seq)
		f.Seq, f.ActionID = locked.Seq, locked.ActionID
		intact = intact && locked.Seq == prev.Seq+1 && locked.PrevHash == prev.Hash && sums(locked, locked.Hash)
		prev = auditchain.Head{Seq: locked.Seq, Hash: locked.Hash}
		if u, ok := closure(locked); ok && intact && !closed {
			closed = true
			why, err := ret.Closures.believe(ctx, r, locked)
			if err != nil {
				return cmp, err
			}
			if why != "" {
				w := f
				w.Kind = FindingClosureNotBelieved
				w.Message = fmt.Sprintf("the locked closure record %s (seq %d, %s) is not believed: %s; what is missing was removed", key, locked.Seq, locked.ActionID, why)
				unbelieved = &w
			} else {
				until, cmp.Closure = u, key
			}
		}
		if len(obj.Rewritten) > 0 {
			w := f
			w.Kind = FindingRewrittenInBucket
			w.Message = fmt.Sprintf("the locked copy %s has %d later version(s) with other bytes (the first, written %s, is the one compared)", key, len(obj.Rewritten), at)
			cmp.Findings = append(cmp.Findings, w)
		}
		if f.Seq == cmp.LockedThrough {
			last = f
		}
		got, ok := inDynamo[locked.Seq]
		switch {
		case !ok:
			f.Kind = FindingMissing
			f.Message = fmt.Sprintf("record seq %d (%s, %s, %s) is missing from DynamoDB; its locked copy is %s, written %s",
				locked.Seq, locked.ActionID, locked.Action, locked.At, key, at)
			missing = append(missing, f)
			continue
		case got.Hash != locked.Hash || !sums(got, locked.Hash):
			f.Kind = FindingDiffers
			f.Message = fmt.Sprintf("record seq %d (%s) in DynamoDB differs from its locked copy %s, written %s (hash %s there, %s locked)",
				locked.Seq, locked.ActionID, key, at, auditchain.Short(got.Hash), auditchain.Short(locked.Hash))
		default:
			continue
		}
		cmp.Findings = append(cmp.Findings, f)
	}
	if !until.IsZero() && !ret.Held && !ret.Now.Before(until) {
		// Expired under retention: what is gone went by TTL, the head too.
		cmp.Expired, cmp.ExpiredOn = len(missing), until.UTC().Format(time.DateOnly)
	} else {
		cmp.Findings = append(cmp.Findings, missing...)
		if unbelieved != nil && len(missing) > 0 {
			cmp.Findings = append(cmp.Findings, *unbelieved)
		}
		if c.Head.Seq < cmp.LockedThrough {
			last.Kind = FindingHeadBehind
			last.Message = fmt.Sprintf("the head says seq %d but the locked copies go to seq %d (%s, written %s): records removed from the tail",
				c.Head.Seq, cmp.LockedThrough, last.Key, last.Locked)
			cmp.Findings = append(cmp.Findings, last)
		}
	}
	for _, l := range c.Records {
		if l.Seq > cmp.LockedThrough {
			cmp.NotYetLocked++
		}
	}
	slices.SortStableFunc(cmp.Findings, func(a, b Finding) int { return int(a.Seq - b.Seq) })
	return cmp, nil
}

// chainRecord reads a locked object as a record of the chain, or says why
// it is none: not a canonical record, another chain's, or under a key that
// is not its seq's.
func chainRecord(body []byte, key string, accountID, entityID int64) (auditchain.Link, error) {
	l, err := auditchain.Parse(body)
	if err != nil || l.AccountID != accountID || l.EntityID != entityID || key != RecordKey(accountID, entityID, l.Seq) {
		return l, fmt.Errorf("the locked copy %s is not a record of this chain", key)
	}
	return l, nil
}

// LockedClosure is the end of retention the entity's locked chain names:
// its end_relationship record (the first: a relationship ends once), within
// the trail's intact prefix (VerifyBucket), if c believes it; ended false
// without one. A record that does not hash to its hash, or does not link
// to the one before, names no closure, whatever it says; nor does one not
// signed as the account requires.
func LockedClosure(ctx context.Context, r Reader, accountID, entityID int64, c Closures) (until time.Time, ended bool, err error) {
	links, brk, err := VerifyBucket(ctx, r, accountID, entityID)
	if err != nil {
		return time.Time{}, false, err
	}
	for _, l := range intactPrefix(links, brk) {
		until, ok := closure(l)
		if !ok {
			continue
		}
		why, err := c.believe(ctx, r, l)
		if err != nil || why != "" {
			return time.Time{}, false, err
		}
		return until, true, nil
	}
	return time.Time{}, false, nil
}

// closure reads the end of retention an end_relationship record names.
func closure(l auditchain.Link) (time.Time, bool) {
	if l.Action != string(domain.ActionEndRelationship) {
		return time.Time{}, false
	}
	var after struct {
		RetainUntil string `json:"retain_until"`
	}
	if err := json.Unmarshal([]byte(l.After), &after); err != nil {
		return time.Time{}, false
	}
	t, err := domain.ParseTime(after.RetainUntil)
	return t, err == nil
}

// CompareEvidence checks a check's evidence as DynamoDB holds it against
// its locked body: a check has one answer, so the body locked first is the
// one received, and DynamoDB's recorded hash must be its hash. A body
// locked after it is a rewrite that came down the stream (the exporter
// refuses those; one there anyway is named too). No finding and locked
// false: nothing locked yet.
func CompareEvidence(ctx context.Context, r Reader, e domain.Evidence) (locked bool, findings []Finding, err error) {
	keys, err := r.List(ctx, EvidencePrefix(e.AccountID, e.CheckID))
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
	if want := EvidenceKey(e.AccountID, e.CheckID, e.SHA256); first.Key != want {
		f := first
		f.Kind = FindingEvidenceNotLocked
		f.Message = fmt.Sprintf("check %d's evidence in DynamoDB has SHA-256 %s, but the body locked on receipt is %s (locked %s): the evidence was rewritten with its hash",
			e.CheckID, auditchain.Short(e.SHA256), first.Key, first.Locked)
		findings = append(findings, f)
	}
	return true, findings, nil
}

// sums reports whether the record's content still hashes to hash.
func sums(l auditchain.Link, hash string) bool {
	got, err := auditchain.Sum(l)
	return err == nil && got == hash
}

// lockedDay is the day the object's first version was written.
func lockedDay(o records.Object) string {
	if len(o.Versions) == 0 || o.Versions[0].LastModified.IsZero() {
		return "an unknown day"
	}
	return o.Versions[0].LastModified.UTC().Format(time.DateOnly)
}
