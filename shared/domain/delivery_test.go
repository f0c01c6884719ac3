package domain

import "testing"

func TestAttemptID(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "dlv_x"}, {1, "dlv_x"}, {2, "dlv_x.2"}, {12, "dlv_x.12"}} {
		if got := AttemptID("dlv_x", tc.n); got != tc.want {
			t.Errorf("AttemptID(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}
