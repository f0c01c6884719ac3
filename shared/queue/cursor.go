package queue

import (
	"encoding/base64"

	"github.com/evs-kyb/evs/shared/domain"
)

// A cursor is the base64url of the queue position a page ended at (the
// last key it evaluated in the index). It carries no account: the page
// reads the caller's account after it, so a cursor from elsewhere can never
// reach another account's reviews.

// maxCursor bounds what is decoded: a position is 45 bytes, its cursor 60.
const maxCursor = 80

func encodeCursor(position string) string {
	if position == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(position))
}

// decodeCursor reads a cursor this service gave ("" for the first page);
// anything else is a validation error on cursor.
func decodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	refused := domain.Invalid("cursor", "is not a cursor of this queue")
	if len(cursor) > maxCursor {
		return "", refused
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", refused
	}
	if _, _, err := domain.ParseQueuePosition(string(b)); err != nil {
		return "", refused
	}
	return string(b), nil
}
