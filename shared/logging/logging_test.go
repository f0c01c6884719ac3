package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// New writes JSON lines, NewText slog's text lines, both at the level
// named (info when the name is not a level).
func TestNewAndNewText(t *testing.T) {
	for _, tc := range []struct {
		level      string
		debug, inf bool
	}{
		{"", false, true},
		{"debug", true, true},
		{"warn", false, false},
		{"WARN", false, false},
		{"loud", false, true},
	} {
		var j, x bytes.Buffer
		for _, l := range []*bytes.Buffer{&j, &x} {
			log := New(l, tc.level)
			if l == &x {
				log = NewText(l, tc.level)
			}
			log.Debug("d")
			log.Info("i", "k", "v")
			log.Warn("w")
		}
		for name, buf := range map[string]*bytes.Buffer{"New": &j, "NewText": &x} {
			out := buf.String()
			if got := strings.Contains(out, "msg=d") || strings.Contains(out, `"msg":"d"`); got != tc.debug {
				t.Errorf("%s(%q): debug logged %v, want %v:\n%s", name, tc.level, got, tc.debug, out)
			}
			if got := strings.Contains(out, "msg=i") || strings.Contains(out, `"msg":"i"`); got != tc.inf {
				t.Errorf("%s(%q): info logged %v, want %v:\n%s", name, tc.level, got, tc.inf, out)
			}
			if !strings.Contains(out, "msg=w") && !strings.Contains(out, `"msg":"w"`) {
				t.Errorf("%s(%q): no warning:\n%s", name, tc.level, out)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(j.String()), "\n") {
			if !json.Valid([]byte(line)) {
				t.Errorf("New(%q) wrote %q, not JSON", tc.level, line)
			}
		}
		if !strings.Contains(x.String(), "level=WARN msg=w") {
			t.Errorf("NewText(%q) wrote %q, not text lines", tc.level, x.String())
		}
	}
}
