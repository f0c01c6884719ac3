package freetext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestProblem(t *testing.T) {
	k := Kind{"test", 5}
	tests := []struct {
		name, v, want string
	}{
		{"plain", "hello", ""},
		{"empty", "", ""},
		{"at the limit in characters, not bytes", "ééééé", ""},
		{"over the limit", "hello!", "longer than 5 characters"},
		{"NUL", "a\x00b", "control characters"},
		{"escape", "a\x1b[31m", "control characters"},
		{"CR LF", "a\r\nb", "control characters"},
		{"tab", "a\tb", "control characters"},
		{"DEL", "a\x7fb", "control characters"},
		{"C1", "a\u0085b", "control characters"},
		{"line separator", "a\u2028b", "control characters"},
		{"paragraph separator", "a\u2029b", "control characters"},
		{"right-to-left mark, as mixed Arabic text has", "a\u200fنور", ""},
		{"right-to-left override", "a\u202eb", "bidirectional"},
		{"isolate", "a\u2066b", "bidirectional"},
		{"invalid UTF-8", "a\xffb", "valid UTF-8"},
		{"emoji and Arabic", "شركة✓", ""},
	}
	for _, tt := range tests {
		got := Problem(tt.v, k)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: Problem(%q) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("reason", "  ", Reason, true); domain.ErrorCode(err) != domain.ECodeInvalid || domain.ErrorFields(err)["reason"][0] != "is required" {
		t.Errorf("blank required: %v", err)
	}
	if err := Check("reason", "", Reason, false); err != nil {
		t.Errorf("blank optional: %v", err)
	}
	if err := Check("name", strings.Repeat("x", Name.Max+1), Name, true); domain.ErrorCode(err) != domain.ECodeInvalid {
		t.Errorf("over-long: %v", err)
	}
}

func TestKindsAreListed(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		if k.Max <= 0 || seen[k.Name] {
			t.Errorf("kind %+v", k)
		}
		seen[k.Name] = true
	}
}

// FuzzProblem: what Problem accepts is valid UTF-8, within its length, and
// holds no control or bidirectional formatting character.
func FuzzProblem(f *testing.F) {
	for _, s := range []string{"ok", "a\x1bb", "\u202e", "\xff", strings.Repeat("é", 30)} {
		f.Add(s)
	}
	k := Kind{"fuzz", 20}
	f.Fuzz(func(t *testing.T, s string) {
		if Problem(s, k) != "" {
			return
		}
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > k.Max || strings.IndexFunc(s, control) >= 0 || strings.IndexFunc(s, bidi) >= 0 {
			t.Fatalf("accepted %q", s)
		}
	})
}
