package blob_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/blob"
)

// store is what both implementations do.
type store interface {
	Put(ctx context.Context, key string, body []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// contract holds an implementation to what the evidence needs of it: the
// bytes back exactly (not UTF-8, empty, the largest body kept), a second
// write of a key (a retry) the same object, a missing key ErrNotFound, keys
// that could leave the store refused before anything is written.
func contract(t *testing.T, s store) {
	ctx := context.Background()
	large := bytes.Repeat([]byte{0xC3, 0x28, 0x00, 'x'}, (4<<20)/4)
	tests := []struct {
		name    string
		key     string
		body    []byte
		twice   bool
		wantErr string
	}{
		{name: "not UTF-8", key: "evidence/1/2/ab12", body: []byte("{\"x\":\"\xff\xfe\x00\"}")},
		{name: "empty", key: "evidence/1/3/e3b0", body: []byte{}},
		{name: "4 MiB", key: "evidence/1/4/cafe", body: large},
		{name: "written twice (a retry)", key: "evidence/1/5/beef", body: []byte("same bytes"), twice: true},
		{name: "absolute", key: "/etc/passwd", body: []byte("x"), wantErr: "bad key"},
		{name: "parent", key: "evidence/../../x", body: []byte("x"), wantErr: "bad key"},
		{name: "empty segment", key: "evidence//x", body: []byte("x"), wantErr: "bad key"},
		{name: "odd byte", key: "evidence/1/2/a?b", body: []byte("x"), wantErr: "bad key"},
		{name: "no key", key: "", body: []byte("x"), wantErr: "bad key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Put(ctx, tt.key, tt.body)
			if tt.twice && err == nil {
				err = s.Put(ctx, tt.key, tt.body)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Put(%q) = %v, want %q", tt.key, err, tt.wantErr)
				}
				if _, err := s.Get(ctx, tt.key); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Get(%q) = %v, want %q", tt.key, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.body) {
				t.Errorf("got %d bytes back, want the %d put", len(got), len(tt.body))
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if _, err := s.Get(ctx, "evidence/9/9/none"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get of a missing key = %v, want ErrNotFound", err)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		// Gone once deleted; deleting it again, or nothing, is no error.
		key := "evidence/9/8/expired"
		if err := s.Put(ctx, key, []byte("x")); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.Delete(ctx, key); err != nil {
				t.Fatalf("Delete = %v", err)
			}
		}
		if _, err := s.Get(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get of a deleted key = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, "../x"); err == nil {
			t.Error("Delete of a bad key: no error")
		}
	})
}
