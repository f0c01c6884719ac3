// Package records keeps records no one can rewrite: objects whose bytes must
// read years later exactly as they were written. S3 is the store on AWS; Dir,
// a directory, stands in for it locally.
//
// On AWS the bucket is created with Object Lock, which keeps it versioned, and
// a default retention in compliance mode (infra): until a version's
// retain-until date no principal, the account's root included, can delete
// that version or shorten its retention. Nothing in a versioned bucket is
// overwritten either: a PutObject under a key adds a new version on top and a
// plain DeleteObject adds a delete marker, the locked version staying beneath.
// So the record is the first version ever written under its key, the one
// whose lock started when it was written: Get reads it whatever came after,
// and names every later version whose bytes differ (Object.Rewritten), so that
// someone holding s3:PutObject can hide a record behind other bytes but not
// change it unseen.
//
// PutUntil writes a version locked in compliance mode to a date its caller
// names (Retention: the law's minimum, domain.RecordLockUntil), tagged with
// the years that lock runs, by which the bucket's lifecycle expires it once
// the lock ended; Put sends no lock, so the bucket's default applies. A
// record still needed when its lock nears its end is renewed (Renew): its
// first version's bytes written again as the newest version, locked to a
// later date. Renewals hold the record's own bytes, so Get never names them
// in Rewritten. No date is ever shortened: compliance mode refuses it, and
// neither store asks.
//
// Dir keeps each record as a file written once, its retain-until date in a
// file beside it; it guarantees nothing against whoever may write the
// directory, and keeps one version only (a renewal dates the file anew and
// moves its date on, never back).
//
// Keys follow blob's rules (blob.CheckKey).
package records

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/blob"
)

// ErrNotFound is wrapped by the error for a key that holds nothing. It is
// fs.ErrNotExist too, so that a caller tells it without importing this
// package (and S3's client with it).
var ErrNotFound = fmt.Errorf("records: no such record (%w)", fs.ErrNotExist)

// ErrDiffers is wrapped by Put's error when the key already holds other
// bytes: nothing was written, the record stays as it was.
var ErrDiffers = errors.New("records: the key already holds other bytes")

// MaxGet bounds what Get reads of a record, as blob's does, and so what Put
// writes: a record that could not be read back must not be locked in.
const MaxGet = blob.MaxGet

// Version is one stored version of an object.
type Version struct {
	ID           string // S3 version id ("" in Dir)
	SHA256       string // hex SHA-256 of its bytes
	LastModified time.Time
	RetainUntil  time.Time // its lock's date (zero if none)
}

// Retention is the lock a version is written with: compliance mode until
// Until, tagged KeepYears (domain.RecordsKeepTag: the whole years from its
// write to Until, which the bucket's lifecycle expires it by). The zero
// Retention is the bucket's default lock, untagged.
type Retention struct {
	Until     time.Time
	KeepYears int
}

// Object is what Get reads: the first version ever written under the key
// (the one the lock protects), and every version written after it.
type Object struct {
	Key       string
	Body      []byte // the first version's bytes (at most MaxGet)
	SHA256    string // hex SHA-256 of Body, computed from the bytes read
	VersionID string
	// Versions is every version, oldest first (one when never overwritten).
	Versions []Version
	// Rewritten is the later versions whose SHA-256 differs from the
	// first's: someone wrote other bytes under the key.
	Rewritten   []Version
	Mode        string    // the first version's lock mode: "COMPLIANCE", "GOVERNANCE" or ""
	RetainUntil time.Time // its retain-until date (zero if none)
	LegalHold   bool      // its legal hold
}

// Locked is a key as renewal sees it: when the newest version holding the
// record's bytes (its first version's) was written, which dates the lock
// that keeps them, and how many versions hold other bytes (a rewrite in
// the bucket, which renewal does not take for its own).
type Locked struct {
	Key     string
	Written time.Time
	Foreign int
}

// checkKey is blob's rule, so that both stores take the same keys.
func checkKey(key string) error {
	if err := blob.CheckKey(key); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	return nil
}

// checkPut refuses a bad key or a body too large for Get to read back.
func checkPut(key string, body []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if len(body) > MaxGet {
		return fmt.Errorf("records: put %s: %d bytes, more than the %d a record may hold", key, len(body), MaxGet)
	}
	return nil
}

// checkPrefix takes "" (everything) or the start of a key: one that would
// pass as a key once any trailing slash is dropped ("exports/", "exports/20").
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := blob.CheckKey(strings.TrimSuffix(prefix, "/")); err != nil {
		return fmt.Errorf("records: bad prefix %q", prefix)
	}
	return nil
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readCapped reads r whole, refusing more than MaxGet bytes (as the blob
// store does).
func readCapped(r io.Reader, what string) ([]byte, error) {
	b, err := blob.ReadObject(r, what)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	return b, nil
}
