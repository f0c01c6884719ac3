package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir keeps objects as files under Root, one per key (its slashes are
// folders): the local stand-in for S3 (under the local stack's data
// directory: devstack.EvidenceDir). Nothing encrypts them.
type Dir struct {
	Root string
}

// Put writes body under key. The file appears whole or not at all (written
// beside it, synced, then renamed), so a reader never sees half an object;
// a second Put of the key replaces it, as S3 does.
func (d Dir) Put(ctx context.Context, key string, body []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, err := FilePath(d.Root, key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = io.Copy(tmp, bytes.NewReader(body))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	return nil
}

// Delete removes the object under key; a key that holds nothing is no
// error.
func (d Dir) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, err := FilePath(d.Root, key)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// Get reads the object under key (at most MaxGet bytes); a key that holds
// nothing is ErrNotFound.
func (d Dir) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := FilePath(d.Root, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob: get %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("blob: get %s: %w", key, err)
	}
	defer f.Close()
	return ReadObject(f, key)
}

// FilePath is where a store of files rooted at root keeps key: the key's
// slashes are folders, and a key CheckKey refuses has no place. Dir keeps
// its objects there, and the records store its records, so the two lay
// out the same keys alike.
func FilePath(root, key string) (string, error) {
	if root == "" {
		return "", errors.New("blob: Dir has no Root")
	}
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(key)), nil
}
