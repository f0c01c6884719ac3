package webhooks

import (
	"fmt"
	"io"
)

// MaxResponseBody is how many bytes of a receiver's answer a delivery
// records: enough to see an error message, not a page of HTML.
const MaxResponseBody = 4096

// ReadCapped reads at most n bytes of r, the part of a receiver's answer a
// delivery records, and reports whether there was more. It never reads more
// than n+1 bytes, so a receiver cannot make us hold a large answer. The
// caller closes r; an answer left unread is not worth draining to reuse the
// connection.
func ReadCapped(r io.Reader, n int) (body []byte, truncated bool, err error) {
	if n < 0 {
		n = 0
	}
	body, err = io.ReadAll(io.LimitReader(r, int64(n)+1))
	if len(body) > n {
		body, truncated = body[:n], true
	}
	if err != nil {
		return body, truncated, fmt.Errorf("read response body: %w", err)
	}
	return body, truncated, nil
}
