package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/evs-kyb/evs/shared/webpage/webpagetest"
)

// TestMain makes the folder -outputdir names, for -artifacts (the browser
// tests' screenshots), and gives the commands under test a demo folder of
// their own: what a person's make local left in .local (its demo account,
// its names) must neither change an answer nor be overwritten.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evs-demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("EVS_DEMO_DIR", dir)
	code := webpagetest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
