package generatetest

import "testing"

func TestFirstDifference(t *testing.T) {
	cases := []struct{ got, want, say string }{
		{"a\nb\n", "a\nb\n", "same lines"},
		{"a\nb\n", "a\nc\n", `line 2 is "b", generated "c"`},
		{"a\n", "a\nb", `line 2 is "", generated "b"`},
	}
	for _, c := range cases {
		if s := FirstDifference([]byte(c.got), []byte(c.want)); s != c.say {
			t.Errorf("FirstDifference(%q, %q) = %s, want %s", c.got, c.want, s, c.say)
		}
	}
}
