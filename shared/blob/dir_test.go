package blob_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/blob"
)

func TestDir(t *testing.T) {
	root := t.TempDir()
	contract(t, blob.Dir{Root: root})

	// Nothing was written outside Root, and no temporary file is left.
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".put-") {
			t.Errorf("left behind: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "x")); err == nil {
		t.Error("a key wrote outside Root")
	}
}

// A file changed behind the store's back is read as it now is: verifying
// it is the caller's (the evidence's hash).
func TestDirReadsWhatIsThere(t *testing.T) {
	ctx := context.Background()
	d := blob.Dir{Root: t.TempDir()}
	if err := d.Put(ctx, "evidence/1/2/ab", []byte("original")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Root, "evidence", "1", "2", "ab"), []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(ctx, "evidence/1/2/ab")
	if err != nil || !bytes.Equal(got, []byte("tampered")) {
		t.Errorf("Get = %q, %v", got, err)
	}
	big := filepath.Join(d.Root, "evidence", "1", "3")
	if err := os.MkdirAll(big, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(big, "cd"), make([]byte, blob.MaxGet+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Get(ctx, "evidence/1/3/cd"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Get of an object over MaxGet = %v", err)
	}
	if err := (blob.Dir{}).Put(ctx, "evidence/1/2/ab", nil); err == nil {
		t.Error("a Dir without Root wrote")
	}
}
