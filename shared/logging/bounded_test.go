package logging

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

func TestBounded(t *testing.T) {
	long := strings.Repeat("a", 100<<10)
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:8]) }
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"an ordinary id", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"},
		{"a path", "/api/v1/entities/1000000001", "/api/v1/entities/1000000001"},
		{"printable, at the prefix's length", strings.Repeat("p", 64), strings.Repeat("p", 64)},
		{"printable, one byte over", strings.Repeat("p", 65),
			`"` + strings.Repeat("p", 64) + `"... (65 bytes, sha256 ` + sum(strings.Repeat("p", 65)) + `)`},
		{"100 KB", long, `"` + long[:64] + `"... (102400 bytes, sha256 ` + sum(long) + `)`},
		{"a NUL", "msg\x00", `"msg\x00" (4 bytes, sha256 ` + sum("msg\x00") + `)`},
		{"a newline", "a\nb", `"a\nb" (3 bytes, sha256 ` + sum("a\nb") + `)`},
		{"DEL", "\x7f", `"\x7f" (1 bytes, sha256 ` + sum("\x7f") + `)`},
		{"UTF-8", "é", `"\u00e9" (2 bytes, sha256 ` + sum("é") + `)`},
		{"invalid UTF-8", "\xff", `"\xff" (1 bytes, sha256 ` + sum("\xff") + `)`},
		// Cut inside a two-byte character: the half is escaped as a byte.
		{"cut inside a rune", strings.Repeat("a", 63) + "é", `"` + strings.Repeat("a", 63) + `\xc3"... (65 bytes, sha256 ` + sum(strings.Repeat("a", 63)+"é") + `)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Bounded(tt.in); got != tt.want {
				t.Errorf("Bounded = %s\nwant      %s", got, tt.want)
			}
		})
	}
}

// Whatever it is given, Bounded's answer is ASCII, at most MaxBounded
// bytes, and its JSON log line stays small.
func TestBoundedIsBounded(t *testing.T) {
	worst := []string{
		strings.Repeat("\x00", 1<<20), strings.Repeat("\xff", 1<<20), strings.Repeat("😀", 1<<18),
		strings.Repeat("é", 1<<19), strings.Repeat(`"\`, 1<<19), strings.Repeat("a", 1<<20),
	}
	for _, s := range worst {
		got := Bounded(s)
		if len(got) > MaxBounded {
			t.Errorf("Bounded(%.8q…) is %d bytes, over MaxBounded %d", s, len(got), MaxBounded)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] > 0x7e {
				t.Fatalf("Bounded(%.8q…) = %q is not printable ASCII", s, got)
			}
		}
		if _, err := strconv.Unquote(got[:strings.LastIndexByte(got[:strings.Index(got, " (")], '"')+1]); err != nil {
			t.Errorf("Bounded(%.8q…) = %s: the prefix does not unquote: %v", s, got, err)
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("refused", "value", got)
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["value"] != got {
			t.Errorf("the log line %s does not carry the value back: %v", buf.Bytes(), err)
		}
		if buf.Len() > 2*MaxBounded+100 {
			t.Errorf("a log line of Bounded(%.8q…) is %d bytes", s, buf.Len())
		}
	}
	if MaxBounded > 400 {
		t.Errorf("MaxBounded %d", MaxBounded)
	}
}
