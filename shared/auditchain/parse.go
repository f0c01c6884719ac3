package auditchain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Parse reads a record back from its canonical form, as the records
// bucket keeps it (one object per record, its bytes the canonical form):
// the inverse of Canonical, so that a trail can be checked from the bucket
// alone. The record's Hash is the SHA-256 of the bytes given. It refuses
// anything Canonical would not have written: another order of fields, a
// length that does not match, a trailing byte, an unknown version.
func Parse(b []byte) (Link, error) {
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte("evs-audit/v")) {
		return Link{}, fmt.Errorf("auditchain: not a canonical record (no version line)")
	}
	v, err := strconv.Atoi(string(line[len("evs-audit/v"):]))
	if err != nil || v < 1 || v > Version {
		return Link{}, fmt.Errorf("auditchain: unknown canonical version %q", line)
	}
	l := Link{Version: v}
	r := &fieldReader{rest: rest}
	for _, step := range r.fields(&l) {
		if err := step(); err != nil {
			return Link{}, err
		}
	}
	if len(r.rest) != 0 {
		return Link{}, fmt.Errorf("auditchain: %d bytes after the last field", len(r.rest))
	}
	sum := sha256.Sum256(b)
	l.Hash = hex.EncodeToString(sum[:])
	return l, nil
}

// fieldReader reads a canonical record's fields, name=<length>:<value>\n
// each, in order from rest.
type fieldReader struct {
	rest []byte
}

// fields are the steps reading l's fields, in the order of l.Version's
// canonical form.
func (r *fieldReader) fields(l *Link) []func() error {
	steps := []func() error{
		func() error { return r.num("account_id", &l.AccountID) },
		func() error { return r.num("entity_id", &l.EntityID) },
		func() error { return r.num("seq", &l.Seq) },
		func() error { return r.str("action_id", &l.ActionID) },
		func() error { return r.str("action", &l.Action) },
		func() error { return r.num("operator_id", &l.OperatorID) },
		func() error { return r.str("operator_name", &l.OperatorName) },
		func() error { return r.str("actor", &l.Actor) },
		func() error { return r.str("request_id", &l.RequestID) },
		func() error { return r.opt("second_approver_id", &l.SecondApproverID) },
		func() error { return r.opt("review_id", &l.ReviewID) },
		func() error { return r.str("reason", &l.Reason) },
		func() error { return r.str("before", &l.Before) },
		func() error { return r.str("after", &l.After) },
		func() error { return r.str("at", &l.At) },
		func() error { return r.str("seen_etag", &l.SeenETag) },
		func() error { return r.str("dossier_etag", &l.DossierETag) },
	}
	if l.Version >= 2 {
		steps = append(steps, func() error { return r.str("dossier_sha256", &l.DossierSHA256) })
	}
	if l.Version >= 3 {
		steps = append(steps,
			func() error { return r.str("identity", &l.Identity) },
			func() error { return r.str("decision_document", &l.DecisionDocument) },
			func() error { return r.str("signatures", &l.Signatures) })
	}
	return append(steps, func() error { return r.str("prev_hash", &l.PrevHash) })
}

// field reads the next field, which must be name.
func (r *fieldReader) field(name string) (string, error) {
	prefix := name + "="
	if !bytes.HasPrefix(r.rest, []byte(prefix)) {
		return "", fmt.Errorf("auditchain: field %s expected", name)
	}
	n, after, ok := bytes.Cut(r.rest[len(prefix):], []byte(":"))
	if !ok {
		return "", fmt.Errorf("auditchain: field %s has no length", name)
	}
	size, err := strconv.Atoi(string(n))
	if err != nil || size < 0 || size+1 > len(after) || after[size] != '\n' {
		return "", fmt.Errorf("auditchain: field %s has a wrong length", name)
	}
	r.rest = after[size+1:]
	return string(after[:size]), nil
}

func (r *fieldReader) num(name string, dst *int64) error {
	s, err := r.field(name)
	if err != nil {
		return err
	}
	if *dst, err = strconv.ParseInt(s, 10, 64); err != nil {
		return fmt.Errorf("auditchain: field %s is not a number", name)
	}
	return nil
}

// opt reads an optional number: empty is none.
func (r *fieldReader) opt(name string, dst **int64) error {
	s, err := r.field(name)
	if err != nil || s == "" {
		return err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("auditchain: field %s is not a number", name)
	}
	*dst = &n
	return nil
}

func (r *fieldReader) str(name string, dst *string) error {
	s, err := r.field(name)
	*dst = s
	return err
}
