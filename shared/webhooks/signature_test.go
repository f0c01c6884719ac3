package webhooks

import "testing"

// GitHub's published test vector for the same scheme.
func TestSignVector(t *testing.T) {
	got := Sign([]byte("It's a Secret to Everybody"), []byte("Hello, World!"))
	want := "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	if got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if !Verify([]byte("It's a Secret to Everybody"), []byte("Hello, World!"), want) {
		t.Error("Verify refused the vector")
	}
	for _, bad := range []string{"", want[:len(want)-1] + "0", "sha1=" + want[7:], want[7:]} {
		if Verify([]byte("It's a Secret to Everybody"), []byte("Hello, World!"), bad) {
			t.Errorf("Verify accepted %q", bad)
		}
	}
}
