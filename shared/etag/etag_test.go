package etag_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/etag"
)

func TestOf(t *testing.T) {
	a, b := etag.Of([]byte("a")), etag.Of([]byte("b"))
	if a == b || a != etag.Of([]byte("a")) {
		t.Fatalf("tags: a %s, again %s, b %s", a, etag.Of([]byte("a")), b)
	}
	if len(a) != 29 || !strings.HasPrefix(a, `"`) || !strings.HasSuffix(a, `"`) || strings.ContainsAny(a, "+/=") {
		t.Errorf("tag %s: want 27 base64url characters in quotes", a)
	}
}

func TestMatches(t *testing.T) {
	tag := etag.Of([]byte("body"))
	other := etag.Of([]byte("other"))
	tests := []struct {
		name, header string
		want         bool
	}{
		{"exact", tag, true},
		{"weak", "W/" + tag, true},
		{"in a list", other + ", " + tag, true},
		{"weak in a list", other + ",W/" + tag, true},
		{"star", "*", true},
		{"other", other, false},
		{"empty", "", false},
		{"unquoted", strings.Trim(tag, `"`), false},
		{"empty members", " , ,", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := etag.Matches(tt.header, tag); got != tt.want {
				t.Errorf("Matches(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestSame(t *testing.T) {
	tag := etag.Of([]byte("body"))
	tests := []struct {
		name, seen string
		want       bool
	}{
		{"quoted", tag, true},
		{"unquoted", strings.Trim(tag, `"`), true},
		{"weak", "W/" + tag, true},
		{"other", etag.Of([]byte("x")), false},
		{"empty", "", false},
		{"star is no tag", "*", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := etag.Same(tt.seen, tag); got != tt.want {
				t.Errorf("Same(%q) = %v, want %v", tt.seen, got, tt.want)
			}
		})
	}
}
