// Package webpagetest is the test support of the pages built on
// shared/webpage (the console, the settings area): it drives a real,
// headless Chromium (Debian's package, installed by
// local/browser/install.sh) from go test with chromedp, and keeps
// screenshots of what it saw. Tests only: it imports testing.
package webpagetest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// DefaultExec is Debian's Chromium; CHROMIUM names another.
const DefaultExec = "/usr/bin/chromium"

// Browser is one Chromium with a fresh profile, for one test.
type Browser struct {
	t   testing.TB
	ctx context.Context
	// Dir is where screenshots go: the test's artifact directory (kept with
	// go test -artifacts -outputdir DIR).
	Dir string
}

// New starts Chromium for t, closed when t ends. It skips under -short and
// fails, saying how to install it, where Chromium is missing.
func New(t *testing.T, width, height int) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test (-short)")
	}
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		exe = DefaultExec
	}
	if _, err := exec.LookPath(exe); err != nil {
		t.Fatalf("no Chromium at %s: run local/browser/install.sh (make test does) or set CHROMIUM", exe)
	}
	// As root, headless, without a sandbox; nothing that reaches for the
	// network on its own (this machine's network is closed, and a test must
	// not depend on it), a profile of its own.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return &Browser{t: t, ctx: ctx, Dir: t.ArtifactDir()}
}

// Main runs a package's tests (its TestMain) with the folder -outputdir
// names made first: with -artifacts, go test makes <outputdir>/_artifacts
// at start but not outputdir itself, so `-artifacts -outputdir /tmp/shots`
// failed until /tmp/shots existed.
func Main(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.outputdir"); f != nil && f.Value.String() != "" {
		if err := os.MkdirAll(f.Value.String(), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "the artifacts' folder:", err)
			return 1
		}
	}
	return m.Run()
}

// Do runs steps with a deadline, failing the test on error.
func (b *Browser) Do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// Get runs one action that answers a value, with a deadline, failing the
// test on error.
func Get[T any](b *Browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// Screenshot saves the whole page as <Dir>/<name>.png and fails the test
// when it is blank (a single colour): a page that rendered nothing.
func (b *Browser) Screenshot(name string) string {
	b.t.Helper()
	buf := Get(b, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := NotBlank(buf); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(b.Dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
	return path
}

// NotBlank says whether an image (a PNG, as chromedp writes one at quality 100) has more
// than one colour, with enough of the others to be text: at least 0.5% of
// its pixels differ from the first.
func NotBlank(img []byte) error {
	m, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return fmt.Errorf("not an image: %w", err)
	}
	bounds := m.Bounds()
	first := m.At(bounds.Min.X, bounds.Min.Y)
	r0, g0, b0, _ := first.RGBA()
	var differ, all int
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			all++
			r, g, bl, _ := m.At(x, y).RGBA()
			if r != r0 || g != g0 || bl != b0 {
				differ++
			}
		}
	}
	if all == 0 || differ*200 < all {
		return fmt.Errorf("blank: %d of %d sampled pixels differ from the corner's colour", differ, all)
	}
	return nil
}
