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
	var l Link
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte("evs-audit/v")) {
		return l, fmt.Errorf("auditchain: not a canonical record (no version line)")
	}
	v, err := strconv.Atoi(string(line[len("evs-audit/v"):]))
	if err != nil || v < 1 || v > Version {
		return l, fmt.Errorf("auditchain: unknown canonical version %q", line)
	}
	l.Version = v
	field := func(name string) (string, error) {
		prefix := name + "="
		if !bytes.HasPrefix(rest, []byte(prefix)) {
			return "", fmt.Errorf("auditchain: field %s expected", name)
		}
		r := rest[len(prefix):]
		n, after, ok := bytes.Cut(r, []byte(":"))
		if !ok {
			return "", fmt.Errorf("auditchain: field %s has no length", name)
		}
		size, err := strconv.Atoi(string(n))
		if err != nil || size < 0 || size+1 > len(after) || after[size] != '\n' {
			return "", fmt.Errorf("auditchain: field %s has a wrong length", name)
		}
		rest = after[size+1:]
		return string(after[:size]), nil
	}
	num := func(name string, dst *int64) error {
		s, err := field(name)
		if err != nil {
			return err
		}
		if *dst, err = strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("auditchain: field %s is not a number", name)
		}
		return nil
	}
	opt := func(name string, dst **int64) error {
		s, err := field(name)
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
	str := func(name string, dst *string) error {
		s, err := field(name)
		*dst = s
		return err
	}
	steps := []func() error{
		func() error { return num("account_id", &l.AccountID) },
		func() error { return num("entity_id", &l.EntityID) },
		func() error { return num("seq", &l.Seq) },
		func() error { return str("action_id", &l.ActionID) },
		func() error { return str("action", &l.Action) },
		func() error { return num("operator_id", &l.OperatorID) },
		func() error { return str("operator_name", &l.OperatorName) },
		func() error { return str("actor", &l.Actor) },
		func() error { return str("request_id", &l.RequestID) },
		func() error { return opt("second_approver_id", &l.SecondApproverID) },
		func() error { return opt("review_id", &l.ReviewID) },
		func() error { return str("reason", &l.Reason) },
		func() error { return str("before", &l.Before) },
		func() error { return str("after", &l.After) },
		func() error { return str("at", &l.At) },
		func() error { return str("seen_etag", &l.SeenETag) },
		func() error { return str("dossier_etag", &l.DossierETag) },
	}
	if v >= 2 {
		steps = append(steps, func() error { return str("dossier_sha256", &l.DossierSHA256) })
	}
	if v >= 3 {
		steps = append(steps,
			func() error { return str("identity", &l.Identity) },
			func() error { return str("decision_document", &l.DecisionDocument) },
			func() error { return str("signatures", &l.Signatures) })
	}
	steps = append(steps, func() error { return str("prev_hash", &l.PrevHash) })
	for _, step := range steps {
		if err := step(); err != nil {
			return Link{}, err
		}
	}
	if len(rest) != 0 {
		return Link{}, fmt.Errorf("auditchain: %d bytes after the last field", len(rest))
	}
	sum := sha256.Sum256(b)
	l.Hash = hex.EncodeToString(sum[:])
	return l, nil
}
