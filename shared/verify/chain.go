// Package verify checks the audit trail and the evidence DynamoDB holds
// against their locked copies in the records bucket (written by
// shared/auditexport, laid out as shared/recordslayout says), so that a
// record, a head or an evidence body rewritten or removed in DynamoDB —
// however consistently, hashes and head included — is named with the
// object that contradicts it: Chain, Evidence. It also reads a trail from
// the bucket alone, as a regulator would (LockedChain), and tells whether
// a locked closure record is believed, which is what tells a trail expired
// under retention from one removed (Closures, LockedClosure).
package verify

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
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

// ChainReport is a chain against its locked copies.
type ChainReport struct {
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
	// Manifests are the account's manifests as read (nil: not read): a
	// tail or a whole trail gone from the bucket shows only against them.
	Manifests *Manifests
}

// Chain checks a chain as DynamoDB holds it against its locked copies:
// every locked record must be in DynamoDB, the same; the head may not be
// before the last locked record. A trail removed from DynamoDB whole, or
// rewritten with its hashes and head recomputed, is named by the first
// locked record it contradicts. A record missing once the retention its
// locked closure record names has run out (and no hold stands) expired,
// TTL removing it: counted, not a finding; missing before, it was removed.
func Chain(ctx context.Context, r Reader, c auditchain.Chain, ret Retention) (ChainReport, error) {
	w := chainWalk{r: r, c: c, ret: ret, inDynamo: make(map[int64]auditchain.Link, len(c.Records)),
		intact: true, prev: auditchain.Head{Hash: auditchain.Genesis}, hashes: map[int64]string{}}
	w.rep.Findings = []Finding{}
	keys, err := r.List(ctx, recordslayout.ChainPrefix(c.AccountID, c.EntityID))
	if err != nil {
		return w.rep, fmt.Errorf("list the locked copies of chain %d: %w", c.EntityID, err)
	}
	for _, l := range c.Records {
		w.inDynamo[l.Seq] = l
	}
	for _, key := range keys {
		if err := w.locked(ctx, key); err != nil {
			return w.rep, err
		}
	}
	w.conclude()
	if m := ret.Manifests; m != nil {
		hashAt := func(seq int64) (string, bool) { h, ok := w.hashes[seq]; return h, ok }
		w.rep.Findings = append(w.rep.Findings, m.Chain(c.EntityID, w.rep.LockedThrough, hashAt, ret.Now)...)
	}
	for _, l := range c.Records {
		if l.Seq > w.rep.LockedThrough {
			w.rep.NotYetLocked++
		}
	}
	slices.SortStableFunc(w.rep.Findings, func(a, b Finding) int { return int(a.Seq - b.Seq) })
	return w.rep, nil
}

// chainWalk is Chain going through the locked copies in key (seq) order.
type chainWalk struct {
	r        Reader
	c        auditchain.Chain
	ret      Retention
	inDynamo map[int64]auditchain.Link
	rep      ChainReport
	hashes   map[int64]string // each locked record's hash, by seq

	last    Finding   // the locked record with the highest seq
	missing []Finding // locked records not in DynamoDB: removed or expired
	// A closure counts only within the locked trail's intact prefix: each
	// record hashing to its own hash, linked to the one before; the first
	// (a relationship ends once), and only if believed.
	intact, closed bool
	prev           auditchain.Head
	prevLink       *auditchain.Link // the locked record before, as read
	until          time.Time        // the end of retention of the believed closure
	unbelieved     *Finding         // named only when it would excuse a removal
}

// locked compares one locked copy with DynamoDB.
func (w *chainWalk) locked(ctx context.Context, key string) error {
	obj, err := w.r.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("read locked copy %s: %w", key, err)
	}
	at := lockedDay(obj)
	f := Finding{Key: key, VersionID: obj.VersionID, Locked: at}
	l, err := chainRecord(obj.Body, key, w.c.AccountID, w.c.EntityID)
	if err != nil {
		f.Kind, f.Message = FindingUnreadable, err.Error()
		w.rep.Findings = append(w.rep.Findings, f)
		return nil
	}
	w.rep.Locked++
	w.rep.LockedThrough = max(w.rep.LockedThrough, l.Seq)
	w.hashes[l.Seq] = l.Hash
	f.Seq, f.ActionID = l.Seq, l.ActionID
	w.intact = w.intact && l.Seq == w.prev.Seq+1 && l.PrevHash == w.prev.Hash && sums(l, l.Hash)
	w.prev = auditchain.Head{Seq: l.Seq, Hash: l.Hash}
	if err := w.closure(ctx, f, l); err != nil {
		return err
	}
	w.prevLink = &l
	if len(obj.Rewritten) > 0 {
		rw := f
		rw.Kind = FindingRewrittenInBucket
		rw.Message = fmt.Sprintf("the locked copy %s has %d later version(s) with other bytes (the first, written %s, is the one compared)", key, len(obj.Rewritten), at)
		w.rep.Findings = append(w.rep.Findings, rw)
	}
	if f.Seq == w.rep.LockedThrough {
		w.last = f
	}
	w.againstDynamo(f, l)
	return nil
}

// closure takes the first end_relationship record of the intact prefix as
// the trail's closure: its end of retention if believed, else the finding
// that says why not.
func (w *chainWalk) closure(ctx context.Context, f Finding, l auditchain.Link) error {
	u, ok := closure(l)
	if !ok || !w.intact || w.closed {
		return nil
	}
	w.closed = true
	why, err := w.ret.Closures.believe(ctx, w.r, l, w.prevLink)
	if err != nil {
		return err
	}
	if why == "" {
		w.until, w.rep.Closure = u, f.Key
		return nil
	}
	f.Kind = FindingClosureNotBelieved
	f.Message = fmt.Sprintf("the locked closure record %s (seq %d, %s) is not believed: %s; what is missing was removed", f.Key, l.Seq, l.ActionID, why)
	w.unbelieved = &f
	return nil
}

// againstDynamo compares a locked record with DynamoDB's: missing (kept
// aside until conclude says removed or expired), or differing.
func (w *chainWalk) againstDynamo(f Finding, locked auditchain.Link) {
	got, ok := w.inDynamo[locked.Seq]
	switch {
	case !ok:
		f.Kind = FindingMissing
		f.Message = fmt.Sprintf("record seq %d (%s, %s, %s) is missing from DynamoDB; its locked copy is %s, written %s",
			locked.Seq, locked.ActionID, locked.Action, locked.At, f.Key, f.Locked)
		w.missing = append(w.missing, f)
	case got.Hash != locked.Hash || !sums(got, locked.Hash):
		f.Kind = FindingDiffers
		f.Message = fmt.Sprintf("record seq %d (%s) in DynamoDB differs from its locked copy %s, written %s (hash %s there, %s locked)",
			locked.Seq, locked.ActionID, f.Key, f.Locked, auditchain.Short(got.Hash), auditchain.Short(locked.Hash))
		w.rep.Findings = append(w.rep.Findings, f)
	}
}

// conclude says what is missing: expired under retention (what is gone
// went by TTL, the head too), or removed, with the head behind the locked
// copies and the closure that would have excused it not believed.
func (w *chainWalk) conclude() {
	if !w.until.IsZero() && !w.ret.Held && !w.ret.Now.Before(w.until) {
		w.rep.Expired, w.rep.ExpiredOn = len(w.missing), w.until.UTC().Format(time.DateOnly)
		return
	}
	w.rep.Findings = append(w.rep.Findings, w.missing...)
	if w.unbelieved != nil && len(w.missing) > 0 {
		w.rep.Findings = append(w.rep.Findings, *w.unbelieved)
	}
	if w.c.Head.Seq < w.rep.LockedThrough {
		last := w.last
		last.Kind = FindingHeadBehind
		last.Message = fmt.Sprintf("the head says seq %d but the locked copies go to seq %d (%s, written %s): records removed from the tail",
			w.c.Head.Seq, w.rep.LockedThrough, last.Key, last.Locked)
		w.rep.Findings = append(w.rep.Findings, last)
	}
}

// chainRecord reads a locked object as a record of the chain, or says why
// it is none: not a canonical record, another chain's, or under a key that
// is not its seq's.
func chainRecord(body []byte, key string, accountID, entityID int64) (auditchain.Link, error) {
	l, err := auditchain.Parse(body)
	if err != nil || l.AccountID != accountID || l.EntityID != entityID || key != recordslayout.RecordKey(accountID, entityID, l.Seq) {
		return l, fmt.Errorf("the locked copy %s is not a record of this chain", key)
	}
	return l, nil
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
