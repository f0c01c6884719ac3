package api

import "testing"

func TestDuplicateKey(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"entity": {"registration_number": "7000000000", "country_code": "SA"}}`, ""},
		{`{"entity": {"registration_number": "1", "registration_number": "7000000000"}}`, "registration_number"},
		{`{"entity": {}, "entity": {"registration_number": "7000000000"}}`, "entity"},
		{`{"entity": {"a": [{"x": 1}, {"x": 2}], "b": {"x": 1}}}`, ""},
		{`{"entity": {"a": [{"x": 1, "x": 2}]}}`, "x"},
		{`{"a": "a", "b": ["a", "a"], "c": {"a": "b"}}`, ""},
		{`[{"k": 1}, {"k": 1}]`, ""},
	}
	for _, tt := range tests {
		if got := duplicateKey([]byte(tt.body)); got != tt.want {
			t.Errorf("duplicateKey(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
