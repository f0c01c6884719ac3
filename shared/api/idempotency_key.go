package api

import (
	"strings"
	"unicode/utf8"
)

// MaxIdempotencyKeyBytes bounds an Idempotency-Key header: it becomes part
// of a DynamoDB key, and no client needs more.
const MaxIdempotencyKeyBytes = 255

// ValidIdempotencyKey reports whether a sent Idempotency-Key can be used:
// 1 to MaxIdempotencyKeyBytes bytes of valid UTF-8, not blank. An absent
// header ("") is no key at all, which the caller tells apart before asking;
// here it is not a valid key. A refused key is
// 422 {"errors": {"idempotency_key": [...]}}, before any store call.
func ValidIdempotencyKey(key string) bool {
	return key != "" && len(key) <= MaxIdempotencyKeyBytes && utf8.ValidString(key) && strings.TrimSpace(key) != ""
}
