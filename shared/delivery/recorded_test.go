package delivery

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/capped"
)

func TestRecorded(t *testing.T) {
	const mark = "…[truncated]"
	keep := MaxRecordedBody - len(mark)
	tests := []struct {
		name string
		in   string // as read: at most MaxRecordedBody+1 bytes
		want string
	}{
		{"empty", "", ""},
		{"short", "bad request", "bad request"},
		{"exactly the cap", strings.Repeat("a", MaxRecordedBody), strings.Repeat("a", MaxRecordedBody)},
		{"one byte over", strings.Repeat("a", MaxRecordedBody+1), strings.Repeat("a", keep) + mark},
		{"cut inside a character", strings.Repeat("é", MaxRecordedBody/2) + "x", strings.Repeat("é", keep/2) + mark},
		{"invalid bytes replaced", "ok\xff\xfe!", "ok\uFFFD!"},
		{"invalid bytes that grow past the cap", strings.Repeat("\xffa", MaxRecordedBody/2), strings.Repeat("\uFFFDa", keep/4) + mark},
		{"over the cap, short once replaced", strings.Repeat("\xff", MaxRecordedBody+1), "\uFFFD" + mark},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := recorded(mustReadCapped(t, tc.in))
			if got != tc.want {
				t.Errorf("recorded = %q (%d bytes), want %q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
			if len(got) > MaxRecordedBody || !utf8.ValidString(got) {
				t.Errorf("%d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
		})
	}
}

// mustReadCapped reads in as a delivery reads an answer.
func mustReadCapped(t *testing.T, in string) ([]byte, bool) {
	t.Helper()
	b, truncated, err := capped.Read(strings.NewReader(in), MaxRecordedBody)
	if err != nil {
		t.Fatal(err)
	}
	return b, truncated
}
