package console_test

import (
	"os"
	"testing"

	"github.com/evs-kyb/evs/shared/webpage/webpagetest"
)

// TestMain makes the folder -outputdir names, for -artifacts (the browser
// tests' screenshots).
func TestMain(m *testing.M) { os.Exit(webpagetest.Main(m)) }
