package domain_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestTextProblem(t *testing.T) {
	tests := []struct {
		name, s string
		max     int
		want    string
	}{
		{"plain text within the limit", "SA-700123", 16, ""},
		{"empty text is no problem of this rule", "", 16, ""},
		{"exactly max bytes", strings.Repeat("x", 16), 16, ""},
		{"one byte over max", strings.Repeat("x", 17), 16, "must be at most 16 bytes"},
		{"bytes, not characters, are counted", "éééééééé" + "x", 16, "must be at most 16 bytes"},
		{"invalid UTF-8", "\xff\xfe", 16, domain.MsgInvalidUTF8},
		{"invalid UTF-8 is told before length", strings.Repeat("\xff", 40), 16, domain.MsgInvalidUTF8},
		{"NUL", "700\x00123", 16, domain.MsgControl},
		{"DEL", "700\x7f123", 16, domain.MsgControl},
		{"a C1 control", "700\u0085123", 16, domain.MsgControl},
		{"a control character is told before length", strings.Repeat("\x01", 40), 16, domain.MsgControl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.TextProblem(tt.s, tt.max); got != tt.want {
				t.Errorf("TextProblem(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
			}
		})
	}
}

func TestRegistrationTextProblemIsTheTextRuleAtItsLimit(t *testing.T) {
	for _, s := range []string{"7001234567", "\xff", "70\x0012", strings.Repeat("7", domain.MaxRegistrationNumber), strings.Repeat("7", domain.MaxRegistrationNumber+1)} {
		if got, want := domain.RegistrationTextProblem(s), domain.TextProblem(s, domain.MaxRegistrationNumber); got != want {
			t.Errorf("RegistrationTextProblem(%q) = %q, want %q", s, got, want)
		}
	}
}
