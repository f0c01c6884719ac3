package records_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/records"
)

// store is what both implementations do.
type store interface {
	Put(ctx context.Context, key string, body []byte) (bool, error)
	PutUntil(ctx context.Context, key string, body []byte, ret records.Retention) (bool, error)
	Get(ctx context.Context, key string) (records.Object, error)
	List(ctx context.Context, prefix string) ([]string, error)
	SetLegalHold(ctx context.Context, key string, on bool) error
	ListLocked(ctx context.Context, prefix string) ([]records.Locked, error)
	Renew(ctx context.Context, key string, ret records.Retention) (string, error)
}

func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// contract holds an implementation to what the exporter and the verifier
// need of it: a record written once and read back exactly, a retry of the
// same bytes told apart from other bytes (which write nothing), missing keys
// ErrNotFound, keys listed in order by prefix, the legal hold kept, and keys
// that could leave the store refused. fresh gives each case an empty store,
// so that a listing is exactly its own keys.
func contract(t *testing.T, fresh func(t *testing.T) store) {
	ctx := context.Background()
	large := bytes.Repeat([]byte{0xC3, 0x28, 0x00, 'x'}, records.MaxGet/4)
	tests := []struct {
		name         string
		key          string
		first        []byte
		second       []byte // put after first when not nil
		wantExisted  bool   // of the second Put
		wantErr      error  // of the second Put
		wantFirstErr string // of the first Put: nothing is then written
	}{
		{name: "not UTF-8", key: "exports/1/a.bin", first: []byte("{\"x\":\"\xff\xfe\x00\"}")},
		{name: "empty", key: "exports/1/empty", first: []byte{}},
		{name: "the largest record", key: "exports/1/large", first: large},
		{name: "the same bytes again (a retry)", key: "exports/1/day.json", first: []byte(`{"n":1}`), second: []byte(`{"n":1}`), wantExisted: true},
		{name: "other bytes", key: "exports/1/day.json", first: []byte(`{"n":1}`), second: []byte(`{"n":2,"more":true}`), wantErr: records.ErrDiffers},
		{name: "other bytes of the same length", key: "exports/1/day.txt", first: []byte("abc"), second: []byte("abd"), wantErr: records.ErrDiffers},
		{name: "nothing after something", key: "exports/1/day.txt", first: []byte("abc"), second: []byte{}, wantErr: records.ErrDiffers},
		{name: "over MaxGet", key: "exports/1/huge", first: make([]byte, records.MaxGet+1), wantFirstErr: "more than"},
		{name: "absolute", key: "/etc/passwd", first: []byte("x"), wantFirstErr: "bad key"},
		{name: "parent", key: "exports/../../x", first: []byte("x"), wantFirstErr: "bad key"},
		{name: "empty segment", key: "exports//x", first: []byte("x"), wantFirstErr: "bad key"},
		{name: "odd byte", key: "exports/1/a~b", first: []byte("x"), wantFirstErr: "bad key"},
		{name: "no key", key: "", first: []byte("x"), wantFirstErr: "bad key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fresh(t)
			existed, err := s.Put(ctx, tt.key, tt.first)
			if tt.wantFirstErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantFirstErr) {
					t.Fatalf("Put(%q) = %v, want %q", tt.key, err, tt.wantFirstErr)
				}
				if _, err := s.Get(ctx, tt.key); err == nil {
					t.Errorf("Get(%q) after a refused Put read something", tt.key)
				}
				if err := s.SetLegalHold(ctx, tt.key, true); err == nil {
					t.Errorf("SetLegalHold(%q) after a refused Put held something", tt.key)
				}
				return
			}
			if err != nil || existed {
				t.Fatalf("first Put = %v, %v; want false, nil", existed, err)
			}
			if tt.second != nil {
				existed, err := s.Put(ctx, tt.key, tt.second)
				if existed != tt.wantExisted || !errors.Is(err, tt.wantErr) {
					t.Fatalf("second Put = %v, %v; want %v, %v", existed, err, tt.wantExisted, tt.wantErr)
				}
			}
			// Whatever the second Put did, the record is the first bytes,
			// in one version.
			got, err := s.Get(ctx, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if got.Key != tt.key || !bytes.Equal(got.Body, tt.first) || got.SHA256 != hexSum(tt.first) {
				t.Errorf("Get = %q, %d bytes, sha256 %s; want the %d bytes put first", got.Key, len(got.Body), got.SHA256, len(tt.first))
			}
			if len(got.Versions) != 1 || got.Versions[0].SHA256 != got.SHA256 || got.Versions[0].ID != got.VersionID || got.Versions[0].LastModified.IsZero() {
				t.Errorf("Versions = %+v, want the one put (id %q)", got.Versions, got.VersionID)
			}
			if len(got.Rewritten) != 0 || got.LegalHold {
				t.Errorf("Rewritten = %v, LegalHold = %v; want none, false", got.Rewritten, got.LegalHold)
			}
		})
	}

	t.Run("missing", func(t *testing.T) {
		s := fresh(t)
		if _, err := s.Put(ctx, "exports/2/x/y", []byte("y")); err != nil {
			t.Fatal(err)
		}
		// "exports/2/x" is only the start of another key.
		for _, key := range []string{"exports/9/none", "exports/2/x"} {
			if _, err := s.Get(ctx, key); !errors.Is(err, records.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Get(%q) = %v, want ErrNotFound", key, err)
			}
			if err := s.SetLegalHold(ctx, key, true); !errors.Is(err, records.ErrNotFound) {
				t.Errorf("SetLegalHold(%q) = %v, want ErrNotFound", key, err)
			}
		}
	})

	t.Run("racing Puts", func(t *testing.T) {
		// Writers racing on one key: one writes, the others find its
		// bytes, and one version is kept.
		s := fresh(t)
		key := "exports/4/race.json"
		const writers = 8
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				var existed bool
				existed, errs[i] = s.Put(ctx, key, fmt.Appendf(nil, "writer %d", i))
				if existed {
					errs[i] = errors.New("existed, for bytes no one else wrote")
				}
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won < 0:
				won = i
			case err == nil:
				t.Errorf("writers %d and %d both wrote", won, i)
			case !errors.Is(err, records.ErrDiffers):
				t.Errorf("writer %d: %v, want ErrDiffers", i, err)
			}
		}
		got, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("writer %d", won); string(got.Body) != want || len(got.Versions) != 1 {
			t.Errorf("Get = %q in %d versions, want %q in one", got.Body, len(got.Versions), want)
		}
	})

	t.Run("list", func(t *testing.T) {
		s := fresh(t)
		keys := []string{"list/b", "list/a/c.json", "list/a-c", "list/a/b", "listing/x"}
		for _, key := range keys {
			if _, err := s.Put(ctx, key, []byte(key)); err != nil {
				t.Fatal(err)
			}
		}
		lists := []struct {
			prefix  string
			want    []string
			wantErr string
		}{
			{prefix: "", want: []string{"list/a-c", "list/a/b", "list/a/c.json", "list/b", "listing/x"}},
			{prefix: "list/", want: []string{"list/a-c", "list/a/b", "list/a/c.json", "list/b"}},
			{prefix: "list/a", want: []string{"list/a-c", "list/a/b", "list/a/c.json"}},
			{prefix: "list/a/", want: []string{"list/a/b", "list/a/c.json"}},
			{prefix: "list/a/b", want: []string{"list/a/b"}},
			{prefix: "list", want: []string{"list/a-c", "list/a/b", "list/a/c.json", "list/b", "listing/x"}},
			{prefix: "list/z/", want: nil},
			{prefix: "none/", want: nil},
			{prefix: "../", wantErr: "bad prefix"},
			{prefix: "list//", wantErr: "bad prefix"},
			{prefix: "/", wantErr: "bad prefix"},
		}
		for _, l := range lists {
			got, err := s.List(ctx, l.prefix)
			if l.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), l.wantErr) {
					t.Errorf("List(%q) = %v, %v; want %q", l.prefix, got, err, l.wantErr)
				}
				continue
			}
			if err != nil || !slices.Equal(got, l.want) {
				t.Errorf("List(%q) = %q, %v; want %q", l.prefix, got, err, l.want)
			}
		}
	})

	t.Run("renew", func(t *testing.T) {
		// A renewal writes the record's bytes again, dated now: the record
		// reads the same, names no rewrite, and lists as written anew.
		s := fresh(t)
		key := "exports/5/renewed.json"
		if _, err := s.Put(ctx, key, []byte(`{"kept":true}`)); err != nil {
			t.Fatal(err)
		}
		before, err := s.ListLocked(ctx, "exports/5/")
		if err != nil || len(before) != 1 || before[0].Key != key || before[0].Written.IsZero() {
			t.Fatalf("ListLocked = %+v, %v; want the record, dated", before, err)
		}
		time.Sleep(1100 * time.Millisecond) // S3 dates to the second
		if sum, err := s.Renew(ctx, key, records.Retention{}); err != nil || sum != hexSum([]byte(`{"kept":true}`)) {
			t.Fatalf("Renew = %s, %v; want the record's SHA-256", sum, err)
		}
		after, err := s.ListLocked(ctx, "exports/5/")
		if err != nil || len(after) != 1 || !after[0].Written.After(before[0].Written) || after[0].Foreign != 0 {
			t.Errorf("ListLocked after a renewal = %+v, %v; want the record dated after %s", after, err, before[0].Written)
		}
		got, err := s.Get(ctx, key)
		if err != nil || string(got.Body) != `{"kept":true}` || len(got.Rewritten) != 0 {
			t.Errorf("Get after a renewal = %q, rewritten %v, %v; want the record, no rewrite", got.Body, got.Rewritten, err)
		}
		if _, err := s.Renew(ctx, "exports/5/none", records.Retention{}); !errors.Is(err, records.ErrNotFound) {
			t.Errorf("Renew of nothing = %v, want ErrNotFound", err)
		}
	})

	t.Run("dates", func(t *testing.T) { dates(t, fresh(t)) })

	t.Run("legal hold", func(t *testing.T) {
		s := fresh(t)
		key := "exports/3/held.json"
		if _, err := s.Put(ctx, key, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		// Each step sets the hold and reads it back; setting it twice is
		// no error.
		for i, on := range []bool{true, true, false, false, true} {
			if err := s.SetLegalHold(ctx, key, on); err != nil {
				t.Fatalf("step %d: SetLegalHold(%v) = %v", i, on, err)
			}
			got, err := s.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if got.LegalHold != on {
				t.Errorf("step %d: LegalHold = %v after SetLegalHold(%v)", i, got.LegalHold, on)
			}
		}
		if keys, err := s.List(ctx, ""); err != nil || !slices.Equal(keys, []string{key}) {
			t.Errorf("List = %q, %v; want only the record", keys, err)
		}
	})
}

// dates holds a store to the dates its writes name: a record reads back
// locked exactly to the date it was put with, a retry leaves it so, and a
// renewal locks its newest version to the renewal's date (S3 keeps the
// first version's beside it: TestS3).
func dates(t *testing.T, s store) {
	ctx := context.Background()
	key := "exports/6/dated.txt"
	body := []byte("kept")
	until := time.Now().UTC().Truncate(time.Second).AddDate(10, 0, 0)
	steps := []struct {
		name string
		do   func() error
		want time.Time // the newest version's date
	}{
		{"put", func() error {
			_, err := s.PutUntil(ctx, key, body, records.Retention{Until: until, KeepYears: 10})
			return err
		}, until},
		{"put again, a later date", func() error {
			_, err := s.PutUntil(ctx, key, body, records.Retention{Until: until.AddDate(1, 0, 0), KeepYears: 10})
			return err
		}, until},
		{"renewed", func() error {
			_, err := s.Renew(ctx, key, records.Retention{Until: until.AddDate(0, 0, 3), KeepYears: 10})
			return err
		}, until.AddDate(0, 0, 3)},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if newest := got.Versions[len(got.Versions)-1].RetainUntil; !newest.Equal(st.want) || !got.RetainUntil.Equal(got.Versions[0].RetainUntil) {
			t.Errorf("%s: dated %s, versions %+v; want the newest dated %s", st.name, got.RetainUntil, got.Versions, st.want)
		}
	}
}
