package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/blob"
)

// Dir keeps records as files under Root, one per key (its slashes are
// folders): the local stand-in for S3. A file is written once and made
// read-only; there is one version and no lock mode, and a file changed
// behind Dir's back reads as it now is. The retain-until date a write names
// is kept in a file beside the record's (key + "~retain-until"), only ever
// moved later, so that code that dates its records runs locally as on AWS
// and tests read the dates back.
//
// The legal hold is a marker file beside the record's (key + "~legal-hold"),
// kept rather than ignored so that code that holds and releases records runs
// locally as on AWS. No key holds a "~" (blob.CheckKey), so no key's file is
// ever taken for a marker or a temporary file, nor the reverse.
type Dir struct {
	Root string
}

const (
	holdSuffix   = "~legal-hold"
	retainSuffix = "~retain-until"
	tempPrefix   = "~put-"
)

// Put is PutUntil with no date: the file is undated, as a version the
// bucket's default locks.
func (d Dir) Put(ctx context.Context, key string, body []byte) (existed bool, err error) {
	return d.PutUntil(ctx, key, body, Retention{})
}

// PutUntil writes body under key, dated ret.Until, unless the key already
// holds something: the same bytes are existed=true (its date left as it
// is), other bytes ErrDiffers, and neither writes. The
// file is written beside its place (created exclusively), synced, then
// linked into place: a link, unlike a rename, refuses a name that exists, so
// two Puts cannot both write, and a crash leaves at most a temporary file,
// never half a record.
func (d Dir) PutUntil(ctx context.Context, key string, body []byte, ret Retention) (existed bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := checkPut(key, body); err != nil {
		return false, err
	}
	path, err := d.path(key)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("records: put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return false, fmt.Errorf("records: put %s: %w", key, err)
	}
	defer os.Remove(tmp.Name()) // the record, once linked, is the other name
	_, err = tmp.Write(body)
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		// Read-only, so that a stray write is refused as the lock refuses
		// one on S3 (the owner may still change it: no guarantee).
		err = tmp.Chmod(0o400)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return d.compare(key, path, body)
	}
	if err == nil {
		err = raiseRetention(path, ret.Until)
	}
	if err != nil {
		return false, fmt.Errorf("records: put %s: %w", key, err)
	}
	return false, nil
}

// compare tells whether the file at path holds body: existed, or ErrDiffers.
func (d Dir) compare(key, path string, body []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("records: put %s: %w", key, err)
	}
	defer f.Close()
	got, err := readCapped(f, key)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(got, body) {
		return false, fmt.Errorf("records: put %s: %w", key, ErrDiffers)
	}
	return true, nil
}

// Get reads the record under key (at most MaxGet bytes): one version, dated
// by the file's modification time; a key that holds nothing is ErrNotFound.
func (d Dir) Get(ctx context.Context, key string) (Object, error) {
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	path, err := d.path(key)
	if err != nil {
		return Object{}, err
	}
	f, info, err := openFile(path)
	if err != nil {
		return Object{}, fmt.Errorf("records: get %s: %w", key, err)
	}
	defer f.Close()
	body, err := readCapped(f, key)
	if err != nil {
		return Object{}, err
	}
	_, err = os.Stat(path + holdSuffix)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Object{}, fmt.Errorf("records: get %s: %w", key, err)
	}
	held := err == nil
	until, err := readRetention(path)
	if err != nil {
		return Object{}, fmt.Errorf("records: get %s: %w", key, err)
	}
	sum := hexSHA256(body)
	return Object{
		Key:         key,
		Body:        body,
		SHA256:      sum,
		Versions:    []Version{{SHA256: sum, LastModified: info.ModTime(), RetainUntil: until}},
		RetainUntil: until,
		LegalHold:   held,
	}, nil
}

// List returns the keys under prefix, sorted, leaving out temporary files
// and legal hold markers.
func (d Dir) List(ctx context.Context, prefix string) ([]string, error) {
	ls, err := d.ListLocked(ctx, prefix)
	keys := make([]string, len(ls))
	for i, l := range ls {
		keys[i] = l.Key
	}
	return keys, err
}

// ListLocked is List with each file's modification time (a file holds one
// version: never a foreign one).
func (d Dir) ListLocked(ctx context.Context, prefix string) ([]Locked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d.Root == "" {
		return nil, errors.New("records: Dir has no Root")
	}
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	// Only the folder the prefix's whole segments name can hold its keys.
	dir := d.Root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir = filepath.Join(d.Root, filepath.FromSlash(prefix[:i]))
	}
	var out []Locked
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return fs.SkipAll // nothing was ever written there
		}
		if err != nil || e.IsDir() || strings.Contains(e.Name(), "~") {
			return err
		}
		rel, err := filepath.Rel(d.Root, path)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); strings.HasPrefix(key, prefix) {
			info, err := e.Info()
			if err != nil {
				return err
			}
			out = append(out, Locked{Key: key, Written: info.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("records: list %s: %w", prefix, err)
	}
	// Byte order, as S3 lists: a walk goes folder by folder ("a/b" before
	// "a-c").
	slices.SortFunc(out, func(a, b Locked) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Renew dates the record's file now, as a renewal's new version would be,
// and moves its retain-until date on to ret.Until (never back); a key that
// holds nothing is ErrNotFound. It returns the bytes' SHA-256.
func (d Dir) Renew(ctx context.Context, key string, ret Retention) (string, error) {
	obj, err := d.Get(ctx, key)
	if err != nil {
		return "", err
	}
	path, err := d.path(key)
	if err != nil {
		return "", err
	}
	now := time.Now()
	err = os.Chtimes(path, now, now)
	if err == nil {
		err = raiseRetention(path, ret.Until)
	}
	if err != nil {
		return "", fmt.Errorf("records: renew %s: %w", key, err)
	}
	return obj.SHA256, nil
}

// SetLegalHold creates or removes the record's marker; a key that holds
// nothing is ErrNotFound.
func (d Dir) SetLegalHold(ctx context.Context, key string, on bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, err := d.path(key)
	if err != nil {
		return err
	}
	f, _, err := openFile(path)
	if err != nil {
		return fmt.Errorf("records: legal hold %s: %w", key, err)
	}
	f.Close()
	if on {
		err = os.WriteFile(path+holdSuffix, nil, 0o600)
	} else if err = os.Remove(path + holdSuffix); errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("records: legal hold %s: %w", key, err)
	}
	return nil
}

// path is where key's record is kept: blob.FilePath, the blob store's
// layout.
func (d Dir) path(key string) (string, error) {
	p, err := blob.FilePath(d.Root, key)
	if err != nil {
		return "", fmt.Errorf("records: %w", err)
	}
	return p, nil
}

// openFile opens a record's file. Nothing there, or a folder (other keys
// under key + "/"), is ErrNotFound, as S3 answers for such a key.
func openFile(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && info.IsDir() {
		err = ErrNotFound
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}
