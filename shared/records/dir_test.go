package records_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/records"
)

func TestDir(t *testing.T) {
	parent := t.TempDir()
	var roots []string
	contract(t, func(t *testing.T) store {
		root, err := os.MkdirTemp(parent, "root")
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
		return records.Dir{Root: root}
	})

	// No temporary file is left, every record is read-only, and nothing
	// was written outside a Root.
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasPrefix(d.Name(), "~put-") {
				t.Errorf("left behind: %s", path)
			}
			info, err := d.Info()
			if err == nil && !strings.Contains(d.Name(), "~") && info.Mode().Perm() != 0o400 {
				t.Errorf("%s is %v, want read-only", path, info.Mode().Perm())
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if entries, err := os.ReadDir(parent); err != nil || len(entries) != len(roots) {
		t.Errorf("beside the roots: %v, %v", entries, err)
	}
}

// What a crash leaves (a temporary file) is no record: it is not listed, and
// the key is written afresh.
func TestDirCrash(t *testing.T) {
	ctx := context.Background()
	d := records.Dir{Root: t.TempDir()}
	folder := filepath.Join(d.Root, "exports", "1")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "~put-123"), []byte("hal"), 0o600); err != nil {
		t.Fatal(err)
	}
	if keys, err := d.List(ctx, ""); err != nil || len(keys) != 0 {
		t.Errorf("List = %q, %v; want nothing", keys, err)
	}
	if existed, err := d.Put(ctx, "exports/1/day.txt", []byte("half")); err != nil || existed {
		t.Errorf("Put = %v, %v; want false, nil", existed, err)
	}
	if keys, err := d.List(ctx, "exports/"); err != nil || !slices.Equal(keys, []string{"exports/1/day.txt"}) {
		t.Errorf("List = %q, %v", keys, err)
	}
}

func TestDirWithoutRoot(t *testing.T) {
	ctx := context.Background()
	d := records.Dir{}
	calls := []struct {
		name string
		call func() error
	}{
		{"Put", func() error { _, err := d.Put(ctx, "exports/1/a", []byte("a")); return err }},
		{"Get", func() error { _, err := d.Get(ctx, "exports/1/a"); return err }},
		{"List", func() error { _, err := d.List(ctx, ""); return err }},
		{"SetLegalHold", func() error { return d.SetLegalHold(ctx, "exports/1/a", true) }},
	}
	for _, c := range calls {
		if err := c.call(); err == nil || !strings.Contains(err.Error(), "no Root") || errors.Is(err, records.ErrNotFound) {
			t.Errorf("%s without Root = %v", c.name, err)
		}
	}
}

// Dir keeps one version: a renewal moves its date on, never back, as
// compliance mode refuses a shorter date.
func TestDirDatesOnlyMoveOn(t *testing.T) {
	ctx := context.Background()
	d := records.Dir{Root: t.TempDir()}
	key := "audit/1/2/00000000000000000001.txt"
	until := time.Date(2036, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := d.PutUntil(ctx, key, []byte("record"), records.Retention{Until: until, KeepYears: 10}); err != nil {
		t.Fatal(err)
	}
	for _, renew := range []time.Time{until.AddDate(-1, 0, 0), {}, until.AddDate(0, 0, 1)} {
		if _, err := d.Renew(ctx, key, records.Retention{Until: renew, KeepYears: 10}); err != nil {
			t.Fatal(err)
		}
		want := until
		if renew.After(until) {
			want = renew
		}
		if got, err := d.Get(ctx, key); err != nil || !got.RetainUntil.Equal(want) {
			t.Errorf("renewed to %s: dated %s, %v; want %s", renew, got.RetainUntil, err, want)
		}
	}
}
