package logging

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// BoundedPrefix is how many bytes of an untrusted value Bounded keeps.
const BoundedPrefix = 64

// MaxBounded is the most bytes Bounded returns, whatever it is given: the
// prefix quoted (at most 4 bytes for each of its bytes, and 2 quotes), the
// "...", and " (<length> bytes, sha256 <16 hex digits>)".
const MaxBounded = 4*BoundedPrefix + 2 + 3 + len(" ( bytes, sha256 )") + 19 + 16

// Bounded is a loggable rendering of untrusted text (a header, a path, an id
// a caller sent), of bounded size: s itself when it is at most BoundedPrefix
// bytes of printable ASCII (0x20 to 0x7E), which leaves ordinary values as
// they are; otherwise its first BoundedPrefix bytes quoted the way Go quotes
// (strconv.QuoteToASCII: control bytes, non-ASCII and invalid UTF-8
// escaped), "..." if it was cut, its length in bytes and the first 16 hex
// digits of its SHA-256, which tell two long values apart and match a value
// found elsewhere:
//
//	"/aaaa…aaaa"... (102400 bytes, sha256 4756a674301af674)   (a path's first 64 bytes)
//	"msg\x00" (4 bytes, sha256 d24fa1ff5fa33c27)
//
// The result is ASCII and at most MaxBounded bytes.
func Bounded(s string) string {
	if len(s) <= BoundedPrefix && printableASCII(s) {
		return s
	}
	prefix, cut := s, ""
	if len(s) > BoundedPrefix {
		prefix, cut = s[:BoundedPrefix], "..."
	}
	sum := sha256.Sum256([]byte(s))
	return strconv.QuoteToASCII(prefix) + cut + " (" + strconv.Itoa(len(s)) + " bytes, sha256 " + hex.EncodeToString(sum[:8]) + ")"
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Quoted is Bounded for a message: an ordinary value quoted ("x"), as a
// message names what it refuses, and anything else as Bounded renders it.
func Quoted(s string) string {
	if b := Bounded(s); b != s {
		return b
	}
	return strconv.Quote(s)
}
