// Package auditchain defines the audit trail's hash chain: the canonical
// form of an audit record, its hash, and the check of a chain against its
// head and a daily export. It depends on nothing but the standard library:
// the store computes hashes with it and the verifier recomputes them.
//
// Each chain is one entity's records (entity 0: the account's own actions),
// numbered from 1 by Seq. A record's PrevHash is the hash of the record
// before it (Genesis for the first), so altering, removing, inserting or
// reordering a record breaks the links after it, and removing the tail
// shows against the head (and, if the head is rewritten too, against the
// latest export).
package auditchain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
)

// Version is the canonical form's version. Each record stores the version
// it was hashed with, so a later version may add fields without
// invalidating the records hashed before it. Version 2 added
// dossier_sha256; version 1 records are still checked as they were hashed.
const Version = 3

// Genesis is the PrevHash of a chain's first record.
const Genesis = ""

// Link is an audit record as it is hashed: the fields as stored, so the
// hash covers exactly the bytes a reader gets back (Before and After are
// the stored JSON documents; At the stored timestamp).
type Link struct {
	Version          int
	AccountID        int64
	EntityID         int64
	Seq              int64
	ActionID         string
	Action           string
	OperatorID       int64
	OperatorName     string
	Actor            string
	RequestID        string
	SecondApproverID *int64
	ReviewID         *int64
	Reason           string
	Before           string
	After            string
	At               string
	// SeenETag and DossierETag: what the operator saw and what was decided
	// on (decisions bound to a view), so they cannot be changed unseen.
	SeenETag    string
	DossierETag string
	// DossierSHA256 is the hash of the dossier decided on (version 2 on).
	DossierSHA256 string
	// Identity, DecisionDocument and Signatures (version 3 on): how the
	// decision's operator is known, the document signed, and the
	// signatures as canonical JSON (domain.DecisionSignature, in order).
	Identity         string
	DecisionDocument string
	Signatures       string
	PrevHash         string
	// Hash is the stored hash; it is not part of the canonical form.
	Hash string
}

// Canonical returns the record's canonical form: a version line, then one
// line per field in a fixed order, each "name=<byte length>:<value>".
// The lengths make the encoding unambiguous whatever the values hold
// (newlines, '=' or ':'); an absent optional number is an empty value,
// which no number encodes to.
func Canonical(l Link) []byte {
	b := fmt.Appendf(nil, "evs-audit/v%d\n", l.Version)
	field := func(name, v string) {
		b = fmt.Appendf(b, "%s=%d:%s\n", name, len(v), v)
	}
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	opt := func(p *int64) string {
		if p == nil {
			return ""
		}
		return num(*p)
	}
	field("account_id", num(l.AccountID))
	field("entity_id", num(l.EntityID))
	field("seq", num(l.Seq))
	field("action_id", l.ActionID)
	field("action", l.Action)
	field("operator_id", num(l.OperatorID))
	field("operator_name", l.OperatorName)
	field("actor", l.Actor)
	field("request_id", l.RequestID)
	field("second_approver_id", opt(l.SecondApproverID))
	field("review_id", opt(l.ReviewID))
	field("reason", l.Reason)
	field("before", l.Before)
	field("after", l.After)
	field("at", l.At)
	field("seen_etag", l.SeenETag)
	field("dossier_etag", l.DossierETag)
	if l.Version >= 2 {
		field("dossier_sha256", l.DossierSHA256)
	}
	if l.Version >= 3 {
		field("identity", l.Identity)
		field("decision_document", l.DecisionDocument)
		field("signatures", l.Signatures)
	}
	field("prev_hash", l.PrevHash)
	return b
}

// Sum returns the hex SHA-256 of the record's canonical form.
func Sum(l Link) (string, error) {
	if l.Version < 1 || l.Version > Version {
		// An unknown version is a record this code cannot check (or an
		// altered version field).
		return "", fmt.Errorf("audit chain: unknown canonical form version %d", l.Version)
	}
	h := sha256.Sum256(Canonical(l))
	return hex.EncodeToString(h[:]), nil
}

// Head is the last record of a chain as its head item (or an export of it)
// holds it: its sequence number and hash.
type Head struct {
	Seq  int64
	Hash string
	// ActionID names the last record, for people reading a report.
	ActionID string
}

// Next links l after head: it sets l's version, Seq and PrevHash, and its
// Hash, and returns the chain's new head.
func Next(head Head, l *Link) Head {
	l.Version = Version
	l.Seq = head.Seq + 1
	l.PrevHash = head.Hash
	l.Hash, _ = Sum(*l)
	return Head{Seq: l.Seq, Hash: l.Hash, ActionID: l.ActionID}
}

// Break is where a chain first fails its check.
type Break struct {
	// ActionID names the first record that fails (empty when what fails is
	// the head or the export).
	ActionID string
	Seq      int64
	Reason   string
}

func (b *Break) Error() string {
	if b.ActionID != "" {
		return fmt.Sprintf("audit chain broken at record %s (seq %d): %s", b.ActionID, b.Seq, b.Reason)
	}
	return fmt.Sprintf("audit chain broken: %s", b.Reason)
}

// Verify checks records (in any order: they are sorted by Seq) against
// each other, the head, and the latest export when there is one (nil
// otherwise). It returns nil when the chain holds, or the first Break.
func Verify(records []Link, head Head, export *Head) *Break {
	rs := append([]Link(nil), records...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Seq < rs[j].Seq })
	prev := Head{Hash: Genesis}
	for _, r := range rs {
		brk := func(format string, args ...any) *Break {
			return &Break{ActionID: r.ActionID, Seq: r.Seq, Reason: fmt.Sprintf(format, args...)}
		}
		sum, err := Sum(r)
		switch {
		case err != nil:
			return brk("%v", err)
		case sum != r.Hash:
			return brk("its content does not match its hash (altered)")
		case r.Seq != prev.Seq+1:
			// A gap (a removed record) or a repeat (an inserted one).
			return brk("seq %d follows seq %d (a record removed or inserted before it)", r.Seq, prev.Seq)
		case r.PrevHash != prev.Hash:
			return brk("its prev_hash is not the hash of record seq %d (a record removed, inserted or reordered before it)", prev.Seq)
		}
		prev = Head{Seq: r.Seq, Hash: r.Hash, ActionID: r.ActionID}
	}
	if head.Seq != prev.Seq || head.Hash != prev.Hash {
		return &Break{Reason: fmt.Sprintf("the head (seq %d, %s) is not the last record (seq %d, %s): records removed from the tail, or the head altered",
			head.Seq, Short(head.Hash), prev.Seq, Short(prev.Hash))}
	}
	if export != nil {
		return checkExport(rs, prev, *export)
	}
	return nil
}

// checkExport checks that the chain (rs, sorted, ending at last) still
// holds the exported record, unchanged.
func checkExport(rs []Link, last Head, export Head) *Break {
	if export.Seq > last.Seq {
		return &Break{Reason: fmt.Sprintf("an export names seq %d but the chain ends at seq %d: records removed from the tail", export.Seq, last.Seq)}
	}
	for _, r := range rs {
		if r.Seq == export.Seq && r.Hash != export.Hash {
			return &Break{ActionID: r.ActionID, Seq: r.Seq, Reason: "its hash is not the one exported (the chain was rewritten since)"}
		}
	}
	if export.Seq == 0 && export.Hash != Genesis {
		return &Break{Reason: "an export names an empty chain with a hash"}
	}
	return nil
}

// Short is a hash as messages show it: its first 12 digits ("genesis" for
// none).
func Short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "genesis"
	}
	return h
}

// Chain is one chain as read for a check: its records, its head, and its
// latest export (nil when it was never exported).
type Chain struct {
	AccountID int64
	EntityID  int64
	Records   []Link
	Head      Head
	Export    *Export
	// Exports are every daily export of the chain, oldest first (Export is
	// the last): each must still be in the chain, so one forged export
	// cannot stand in for the real ones.
	Exports []Export
	// Misfiled are chained records whose listing keys (which place them in
	// an entity's trail and order it, and are not hashed) no longer match
	// their hashed fields: moved out of a listing, or reordered in it.
	Misfiled []Link
	// Unchained are the entity's records that carry no hash: records
	// written before the chain existed, or records added beside it.
	Unchained []Link
}

// Export is a head as the daily export recorded it.
type Export struct {
	Head
	EntityID int64
	// Day is the export's day (YYYY-MM-DD, UTC).
	Day string
}

// Verify checks the chain (see Verify), and that what a listing shows is
// what the chain holds: no chained record misfiled, and no unchained record
// dated at or after the chain's first (one written before the chain existed
// is older than every chained record; a later one was added beside it).
func (c Chain) Verify() *Break {
	var e *Head
	if c.Export != nil {
		e = &c.Export.Head
	}
	if brk := Verify(c.Records, c.Head, e); brk != nil {
		return brk
	}
	rs := append([]Link(nil), c.Records...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Seq < rs[j].Seq })
	last := Head{Hash: Genesis}
	if n := len(rs); n > 0 {
		last = Head{Seq: rs[n-1].Seq, Hash: rs[n-1].Hash}
	}
	for _, x := range c.Exports {
		if brk := checkExport(rs, last, x.Head); brk != nil {
			brk.Reason += fmt.Sprintf(" (the export of %s)", x.Day)
			return brk
		}
	}
	for _, r := range c.Misfiled {
		return &Break{ActionID: r.ActionID, Seq: r.Seq, Reason: "its listing keys (entity_key, at_key) no longer match its hashed entity and time: moved out of the trail, or reordered in it"}
	}
	first := ""
	for _, r := range c.Records {
		if first == "" || r.At < first {
			first = r.At
		}
	}
	for _, u := range c.Unchained {
		if first != "" && u.At >= first {
			return &Break{ActionID: u.ActionID, Reason: fmt.Sprintf("a record without a hash dated %s, after the chain began (%s): added beside the chain", u.At, first)}
		}
	}
	return nil
}

// ChainHead is a chain's head as its head item holds it: whose chain, its
// last record, and when it moved (RFC 3339, as stored).
type ChainHead struct {
	Head
	EntityID int64
	At       string
}
