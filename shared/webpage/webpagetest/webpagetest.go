// Package webpagetest is the test support of the pages built on
// shared/webpage (the console, the settings area): it drives a real,
// headless Chromium (Debian's package, installed by
// local/browser/install.sh) from go test with chromedp, keeps
// screenshots of what it saw, and checks each page it takes a screenshot
// of with axe-core's WCAG 2.1 A and AA rules (installed by
// local/axe/install.sh). Tests only: it imports testing.
package webpagetest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	if _, err := axeSource(); err != nil {
		t.Fatalf("no axe-core for the accessibility check: %v: run local/axe/install.sh (make test does; make axe-install) or set AXE_DIR", err)
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
// when it is blank (a single colour): a page that rendered nothing, or when
// axe-core finds it inaccessible (Accessible): every page a test keeps a
// picture of is checked.
func (b *Browser) Screenshot(name string) string {
	b.t.Helper()
	b.Accessible(name)
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

// AxeVersion is the axe-core local/axe/package.json pins, and
// local/axe/install.sh installs into ~/.cache/evs/axe-core-<version>.
const AxeVersion = "4.14.1"

// AxeTags are the rules run on every page: WCAG 2.0 and 2.1, levels A and
// AA.
var AxeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

// AxeFile is axe.min.js where local/axe/install.sh puts it: under AXE_DIR
// when set, else ~/.cache/evs/axe-core-<AxeVersion>.
func AxeFile() (string, error) {
	dir := os.Getenv("AXE_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache", "evs", "axe-core-"+AxeVersion)
	}
	return filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"), nil
}

var axeOnce = sync.OnceValues(func() (string, error) {
	path, err := AxeFile()
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !bytes.Contains(src, []byte("axe v"+AxeVersion)) {
		return "", fmt.Errorf("%s is not axe-core %s", path, AxeVersion)
	}
	return string(src), nil
})

// axeSource is axe.min.js's text, read once.
func axeSource() (string, error) { return axeOnce() }

// Violation is one rule axe-core finds broken on a page, with the elements
// that break it (their CSS selectors).
type Violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// Violations runs axe-core's WCAG 2.1 A and AA rules (AxeTags) on the page
// the browser shows. axe.min.js is injected from the file, offline, with
// the DevTools protocol's Runtime.evaluate: a script the page's CSP
// (script-src 'self') would refuse inline runs so, as one typed in
// DevTools' console does; axe itself evaluates no strings. Once per
// document: a navigation drops it.
func (b *Browser) Violations() []Violation {
	b.t.Helper()
	src, err := axeSource()
	if err != nil {
		b.t.Fatalf("axe-core: %v", err)
	}
	if !Get(b, "is axe loaded", chromedp.Evaluate[bool](`typeof window.axe === "object"`)) {
		Get(b, "inject axe-core", chromedp.Evaluate[bool](src+"\n;typeof window.axe === \"object\""))
	}
	tags, _ := json.Marshal(AxeTags)
	run := `axe.run(document, {runOnly: {type: "tag", values: ` + string(tags) + `}, resultTypes: ["violations"]})
  .then(r => r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
    targets: v.nodes.map(n => n.target.map(String).join(" >>> "))})))`
	return Get(b, "run axe-core", chromedp.Evaluate[[]Violation](run, chromedp.EvalAwaitPromise))
}

// Accessible fails the test, naming the page, with every violation of the
// WCAG 2.1 A and AA rules axe-core finds on the page the browser shows.
func (b *Browser) Accessible(name string) {
	b.t.Helper()
	vs := b.Violations()
	if len(vs) == 0 {
		return
	}
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = "  " + v.String()
	}
	b.t.Errorf("%s: %d accessibility violations (axe-core %s, WCAG 2.1 A/AA) at %s:\n%s", name, len(vs), AxeVersion,
		Get(b, "location", chromedp.Evaluate[string]("location.pathname")), strings.Join(lines, "\n"))
}
