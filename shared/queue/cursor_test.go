package queue

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestQueueCursor(t *testing.T) {
	pos := domain.QueuePosition(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), 42_000_000_017)
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	if got, err := decodeCursor(encodeCursor(pos)); err != nil || got != pos {
		t.Fatalf("round trip = %q, %v; want %q", got, err, pos)
	}
	if encodeCursor("") != "" {
		t.Error("the end has a cursor")
	}
	for _, tc := range []struct{ name, cursor string }{
		{"not base64", "not a cursor!"},
		{"a byte more, padded", base64.URLEncoding.EncodeToString([]byte(pos + "0"))},
		{"standard base64", base64.StdEncoding.EncodeToString([]byte(pos + "??"))},
		{"a review id alone", b64("42000000017")},
		{"a short id", b64("2026-11-01T09:00:00.000Z#42")},
		{"a zero id", b64("2026-11-01T09:00:00.000Z#00000000000000000000")},
		{"a negative id", b64("2026-11-01T09:00:00.000Z#-0000000000000000001")},
		{"another time form", b64("2026-11-01T09:00:00Z#00000000042000000017")},
		{"a key of another attribute", b64(`{"account_id":{"N":"2"}}`)},
		{"too long", strings.Repeat("A", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeCursor(tc.cursor)
			checkField(t, err, "cursor")
		})
	}
}
