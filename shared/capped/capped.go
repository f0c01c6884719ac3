// Package capped reads what a peer sends (a request body, a provider's or
// a receiver's answer, a stored object) without letting the peer decide
// how much memory that takes: one rule, so no reader of untrusted bytes
// forgets the cap or the byte past it that tells a long body from one of
// exactly the cap.
package capped

import "io"

// Read reads r up to n bytes and reports whether r had more (more is then
// true and body its first n bytes). It never reads past byte n+1. A read
// error is r's own, returned as io.ReadAll returns it, with what was read
// before it: the caller knows what it was reading and says so. The caller
// closes r.
func Read(r io.Reader, n int) (body []byte, more bool, err error) {
	n = max(n, 0)
	body, err = io.ReadAll(io.LimitReader(r, int64(n)+1))
	if len(body) > n {
		body, more = body[:n], true
	}
	return body, more, err
}
