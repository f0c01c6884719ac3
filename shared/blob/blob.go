// Package blob keeps opaque objects by key: the evidence blob store, where a
// provider's answer too large for its DynamoDB item is kept (README,
// Evidence). S3 is the store on AWS; Dir, a directory, stands in for it
// locally. Both are written once per key by content-addressed keys
// (domain.EvidenceObjectKey): a retried write writes the same bytes.
//
// Callers define the small interface they use (checks.BlobPutter,
// checks.BlobGetter); this package knows nothing of evidence.
package blob

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/evs-kyb/evs/shared/capped"
)

// ErrNotFound is wrapped by Get's error for a key that holds nothing. It
// is fs.ErrNotExist too, so that a caller tells it without importing this
// package (and S3's client with it).
var ErrNotFound = fmt.Errorf("blob: no such object (%w)", fs.ErrNotExist)

// MaxGet bounds what Get reads of one object: twice the largest body kept
// (domain.MaxEvidence), so that an object replaced by something far larger
// is an error rather than a Lambda out of memory.
const MaxGet = 8 << 20

// ReadObject reads an object's bytes from r whole, refusing one over
// MaxGet bytes; key names the object in the error. Both stores read by it,
// and so does the records store, whose records are objects too.
func ReadObject(r io.Reader, key string) ([]byte, error) {
	b, more, err := capped.Read(r, MaxGet)
	if err != nil {
		return nil, fmt.Errorf("blob: get %s: %w", key, err)
	}
	if more {
		return nil, fmt.Errorf("blob: get %s: the object is larger than the %d bytes read of one", key, MaxGet)
	}
	return b, nil
}

// CheckKey refuses what is no key of ours: empty, absolute, with empty,
// "." or ".." segments, or with bytes a path or a URL would read otherwise.
// Exported so that every store keyed like this one (shared/records) refuses
// the same keys by the same rule.
func CheckKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return fmt.Errorf("blob: bad key %q", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("blob: bad key %q", key)
		}
	}
	for _, r := range key {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/-_.", r)
		if !ok {
			return fmt.Errorf("blob: bad key %q", key)
		}
	}
	return nil
}
