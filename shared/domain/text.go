package domain

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Refusals of text that cannot be a value at all, whatever the field.
const (
	MsgInvalidUTF8 = "must be valid UTF-8"
	MsgControl     = "must not contain control characters"
)

// TextProblem says why s cannot be a key-like value (a registration
// number, a query parameter) at all: invalid UTF-8, a control character
// (C0, DEL or C1), or over max bytes; "" when it can. Bytes, not
// characters, because such values end up in store keys, which DynamoDB
// bounds in bytes. Text people write (reasons, names) has package
// freetext's stricter rule instead.
func TextProblem(s string, max int) string {
	switch {
	case !utf8.ValidString(s):
		return MsgInvalidUTF8
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return MsgControl
	case len(s) > max:
		return fmt.Sprintf("must be at most %d bytes", max)
	}
	return ""
}
