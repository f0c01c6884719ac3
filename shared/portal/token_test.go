package portal

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

func TestTokens(t *testing.T) {
	link, err := newToken(bytes.NewReader(bytes.Repeat([]byte{0xfb}, 32)), LinkPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if want := LinkPrefix + strings.Repeat("-_v7", 10) + "-_s"; link != want {
		t.Errorf("token = %s, want %s", link, want)
	}
	if _, err := newToken(iotest.ErrReader(errors.New("no entropy")), LinkPrefix); err == nil {
		t.Error("a failing random source made a token")
	}
	if _, err := newToken(bytes.NewReader(make([]byte, 31)), LinkPrefix); err == nil {
		t.Error("31 random bytes made a token")
	}
	session, err := newToken(reader(nil), SessionPrefix)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, s, prefix string
		want            bool
	}{
		{"a link", link, LinkPrefix, true},
		{"a session", session, SessionPrefix, true},
		{"a link as a session", link, SessionPrefix, false},
		{"a session as a link", session, LinkPrefix, false},
		{"empty", "", LinkPrefix, false},
		{"the prefix alone", LinkPrefix, LinkPrefix, false},
		{"one character short", link[:len(link)-1], LinkPrefix, false},
		{"one character more", link + "A", LinkPrefix, false},
		{"not base64url", LinkPrefix + strings.Repeat("+", 43), LinkPrefix, false},
		{"an API key", "evs_" + strings.Repeat("A", 43), LinkPrefix, false},
	}
	for _, tc := range tests {
		if got := wellFormed(tc.s, tc.prefix); got != tc.want {
			t.Errorf("%s: wellFormed = %v, want %v", tc.name, got, tc.want)
		}
	}
	h := hashToken(link)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h) || h == hashToken(session) {
		t.Errorf("hash = %s", h)
	}
	if LinkID(h) != "lnk_"+h[:16] || SessionID(h) != "ses_"+h[:16] {
		t.Errorf("ids %s %s", LinkID(h), SessionID(h))
	}
}

func TestLinkURL(t *testing.T) {
	const tok = LinkPrefix + "abc-_"
	tests := []struct {
		base, want string
		ok         bool
	}{
		{"http://localhost:3000", "http://localhost:3000/console/enrol?token=" + tok, true},
		{"https://abc.execute-api.me-central-1.amazonaws.com/dev/", "https://abc.execute-api.me-central-1.amazonaws.com/dev/console/enrol?token=" + tok, true},
		{"", "", false},
		{"127.0.0.1:3000", "", false},
		{"ftp://example.com", "", false},
		{"https://", "", false},
		{"https://example.com/?a=b", "", false},
		{"https://example.com/#top", "", false},
		{"https://user:pw@example.com", "", false},
	}
	for _, tc := range tests {
		got, err := LinkURL(tc.base, tok)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("LinkURL(%q) = %q, %v; want %q", tc.base, got, err, tc.want)
		}
	}
}
