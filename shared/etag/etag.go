// Package etag computes the entity tags of representations and compares
// them as If-None-Match does (RFC 9110 §8.8.3, §13.1.2).
package etag

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Of is the strong entity tag of a representation: the first 27 characters
// (162 bits) of the base64url SHA-256 of its bytes, quoted. It follows from
// the bytes alone, so any change to what is shown gives a new tag and the
// JSON and Markdown forms of one record never share one.
func Of(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:])[:27] + `"`
}

// opaque is a tag without its weakness prefix: If-None-Match compares
// weakly, so W/"x" matches "x".
func opaque(tag string) string {
	return strings.TrimPrefix(strings.TrimSpace(tag), "W/")
}

// Matches reports whether an If-None-Match header value (a list of tags, or
// "*") names tag, by weak comparison. An empty header matches nothing.
func Matches(ifNoneMatch, tag string) bool {
	if strings.TrimSpace(ifNoneMatch) == "*" {
		return true
	}
	want := opaque(tag)
	for _, t := range strings.Split(ifNoneMatch, ",") {
		if t := opaque(t); t != "" && t == want {
			return true
		}
	}
	return false
}

// Same reports whether a tag an operator saw names the same representation
// as tag, by weak comparison. The quotes may be left off seen, as a shell
// user is apt to drop them.
func Same(seen, tag string) bool {
	s := opaque(seen)
	if !strings.HasPrefix(s, `"`) {
		s = `"` + s + `"`
	}
	return s == opaque(tag)
}
