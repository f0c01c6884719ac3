package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// chainCheck is what a chain of the bucket is judged by: the relying party,
// what the account's own chain recorded, its manifests, the check's time.
type chainCheck struct {
	cfg       passkey.Config
	account   passkey.AccountChain
	manifests *Manifests
	now       time.Time
}

// chainRead is a walk through one chain's objects in seq order, holding
// only the record before.
type chainRead struct {
	rep      EntityReport
	prev     auditchain.Head
	prevLink *auditchain.Link
	broken   bool
	through  int64  // the highest seq read
	headSeq  int64  // the seq of the head the manifests name
	headHash string // the record's hash at headSeq, if read
	headRead bool
}

// walkChain checks one chain of the bucket: each object a record of its
// key, its SHA-256 the next one's prev_hash, the seqs 1, 2, 3…; each
// decision by the one rule; the chain against its manifests.
func walkChain(ctx context.Context, r Reader, c chainCheck, accountID, entityID int64) (EntityReport, error) {
	w := chainRead{rep: EntityReport{AccountID: accountID, EntityID: entityID, Findings: []Finding{}, Decisions: []Decision{}},
		prev: auditchain.Head{Hash: auditchain.Genesis}, headSeq: c.manifests.Heads[entityID].Seq}
	keys, err := r.List(ctx, recordslayout.ChainPrefix(accountID, entityID))
	if err != nil {
		return w.rep, fmt.Errorf("list %s: %w", recordslayout.ChainPrefix(accountID, entityID), err)
	}
	for _, key := range keys {
		obj, err := r.Get(ctx, key)
		if err != nil {
			return w.rep, fmt.Errorf("read %s: %w", key, err)
		}
		f := Finding{Key: key, VersionID: obj.VersionID, Locked: lockedDay(obj)}
		l, err := chainRecord(obj.Body, key, accountID, entityID)
		if err != nil {
			f.Kind, f.Message = FindingUnreadable, err.Error()
			w.rep.Findings = append(w.rep.Findings, f)
			w.broken = true
			continue
		}
		f.Seq, f.ActionID = l.Seq, l.ActionID
		if len(obj.Rewritten) > 0 {
			rw := f
			rw.Kind = FindingRewrittenInBucket
			rw.Message = fmt.Sprintf("%s has %d later version(s) with other bytes (the first is the one read)", key, len(obj.Rewritten))
			w.rep.Findings = append(w.rep.Findings, rw)
		}
		w.record(c, f, l)
	}
	hashAt := func(seq int64) (string, bool) { return w.headHash, w.headRead && seq == w.headSeq }
	w.rep.Findings = append(w.rep.Findings, c.manifests.Chain(entityID, w.through, hashAt, c.now)...)
	return w.rep, nil
}

// record checks one record against the one before it, and judges it if
// it is a decision's.
func (w *chainRead) record(c chainCheck, f Finding, l auditchain.Link) {
	w.rep.Records++
	if !w.broken && (l.Seq != w.prev.Seq+1 || l.PrevHash != w.prev.Hash) {
		b := f
		b.Kind = FindingBroken
		b.Message = fmt.Sprintf("record seq %d (%s) does not follow seq %d: prev_hash %s, the record before hashes to %s (a record removed or changed)",
			l.Seq, l.ActionID, w.prev.Seq, auditchain.Short(l.PrevHash), auditchain.Short(w.prev.Hash))
		w.rep.Findings = append(w.rep.Findings, b)
		w.broken = true
	}
	if l.Seq == w.headSeq {
		w.headHash, w.headRead = l.Hash, true
	}
	w.through = max(w.through, l.Seq)
	if passkey.IsDecision(l) {
		d, why := c.judge(l, w.prevLink)
		w.rep.Decisions = append(w.rep.Decisions, d)
		if why != "" {
			n := f
			n.Kind = FindingDoesNotCount
			n.Message = fmt.Sprintf("the decision at seq %d (%s, %s) does not count: %s", l.Seq, l.ActionID, l.Action, why)
			w.rep.Findings = append(w.rep.Findings, n)
		}
	}
	w.prev = auditchain.Head{Seq: l.Seq, Hash: l.Hash, ActionID: l.ActionID}
	w.prevLink = &l
}

// judge is a decision as read, and why it does not count ("" when it
// does): by the one rule (a session's record included: only a queue claim
// counts so), and a closure also not dated before the record it follows.
func (c chainCheck) judge(l auditchain.Link, before *auditchain.Link) (Decision, string) {
	d := Decision{Seq: l.Seq, Action: l.Action, OperatorID: l.OperatorID, SecondApproverID: l.SecondApproverID, Identity: l.Identity,
		Dossier: l.SeenETag, At: l.At, Counts: true}
	if d.Identity == "" {
		d.Identity = "none"
	}
	why := ""
	if _, err := c.account.Counts(c.cfg, l); err != nil {
		why = domain.ErrorMessage(err)
	} else if _, ok := closure(l); ok && before != nil && dated(l).Before(dated(*before)) {
		why = fmt.Sprintf("a closure dated %s, before the record it follows (%s)", l.At, before.At)
	}
	d.Counts = why == ""
	return d, why
}
