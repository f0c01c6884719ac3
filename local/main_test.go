package main

import (
	"os"
	"testing"

	"github.com/evs-kyb/evs/shared/browsertest"
)

// TestMain makes the folder -outputdir names, for -artifacts (the browser
// tests' screenshots).
func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }
