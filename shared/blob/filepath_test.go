package blob_test

import (
	"path/filepath"
	"testing"

	"github.com/evs-kyb/evs/shared/blob"
)

func TestFilePath(t *testing.T) {
	tests := []struct {
		name, root, key string
		want            string // "" when refused
	}{
		{"a key's slashes are folders", "/data", "evidence/1/2/ab", filepath.Join("/data", "evidence", "1", "2", "ab")},
		{"a key of one segment", "/data", "ab", filepath.Join("/data", "ab")},
		{"no root has no place", "", "ab", ""},
		{"a key that climbs out has no place", "/data", "../etc/passwd", ""},
		{"an absolute key has no place", "/data", "/etc/passwd", ""},
		{"a key with a tilde (a marker's) has no place", "/data", "ab~legal-hold", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := blob.FilePath(tt.root, tt.key)
			if got != tt.want || (err == nil) != (tt.want != "") {
				t.Errorf("FilePath(%q, %q) = %q, %v; want %q", tt.root, tt.key, got, err, tt.want)
			}
		})
	}
}
