package main

import (
	"context"
	"strings"
	"testing"
)

// up names the console's address whatever it seeds: with demo data on the
// demo's Console line (with its enrolment link), without on a line of its
// own; the settings area's always.
func TestBannerNamesTheConsoleWithoutDemoData(t *testing.T) {
	text, err := upBanner{addr: "127.0.0.1:3107", port: "3107", simURL: "http://127.0.0.1:3108", docsFile: "/nonexistent"}.text(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Console:  http://localhost:3107/console/ ", "Settings: http://localhost:3107/settings/ "} {
		if !strings.Contains(text, want) {
			t.Errorf("the banner lacks %q:\n%s", want, text)
		}
	}
}
