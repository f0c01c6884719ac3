package webpagetest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// The harness drives Debian's Chromium: a page is loaded, read, clicked,
// and its screenshot is not blank.
func TestBrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			w.Write([]byte(`<!doctype html><h1 id="done">Posted</h1>`))
			return
		}
		w.Write([]byte(`<!doctype html><html lang="en"><title>Harness</title><main><h1>Hello from the harness</h1>
<form method="post"><button id="go">Go</button></form></main></html>`))
	}))
	defer srv.Close()
	b := New(t, 800, 600)
	b.Do("open", chromedp.Navigate(srv.URL))
	if title := Get(b, "title", chromedp.Title()); title != "Harness" {
		t.Errorf("title %q", title)
	}
	b.Screenshot("harness")
	b.Do("post", chromedp.Click(chromedp.ID("go")), chromedp.WaitVisible(chromedp.ID("done")))
	if got := Get(b, "heading", chromedp.Text(chromedp.ID("done"))); got != "Posted" {
		t.Errorf("after the click: %q", got)
	}
}

func TestNotBlank(t *testing.T) {
	img := func(draw bool) []byte {
		m := image.NewRGBA(image.Rect(0, 0, 100, 100))
		for y := range 100 {
			for x := range 100 {
				c := color.RGBA{255, 255, 255, 255}
				if draw && x > 10 && x < 60 && y > 40 && y < 50 {
					c = color.RGBA{0, 0, 0, 255}
				}
				m.Set(x, y, c)
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, m)
		return buf.Bytes()
	}
	if err := NotBlank(img(false)); err == nil {
		t.Error("a white image passed")
	}
	if err := NotBlank(img(true)); err != nil {
		t.Errorf("an image with a bar: %v", err)
	}
	if err := NotBlank([]byte("nope")); err == nil {
		t.Error("garbage passed")
	}
}

// axe-core, injected with Runtime.evaluate, runs on a page under the
// shell's Content-Security-Policy (no inline script, no eval), finds what
// breaks WCAG 2.1 A/AA, and nothing on a page that breaks none.
func TestAxe(t *testing.T) {
	pages := map[string]string{
		"/bad": `<!doctype html><html><title>Bad</title><body><h1>Form</h1><input name="q">
<p style="color:#bbb;background:#fff">faint</p><img src="/x.png"></body></html>`,
		"/good": `<!doctype html><html lang="en"><title>Good</title><body><main><h1>Form</h1>
<label for="q">Query</label> <input id="q" name="q"><p dir="auto">شركة المثال</p></main></body></html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'none'; base-uri 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(pages[r.URL.Path]))
	}))
	defer srv.Close()
	b := New(t, 800, 600)
	b.Do("bad", chromedp.Navigate(srv.URL+"/bad"))
	var ids []string
	for _, v := range b.Violations() {
		ids = append(ids, v.ID)
		if v.Impact == "" || len(v.Targets) == 0 {
			t.Errorf("a violation without its impact or elements: %+v", v)
		}
	}
	for _, want := range []string{"html-has-lang", "label", "image-alt", "color-contrast"} {
		if !slices.Contains(ids, want) {
			t.Errorf("axe found %v on the bad page, not %s", ids, want)
		}
	}
	b.Do("good", chromedp.Navigate(srv.URL+"/good"))
	if vs := b.Violations(); len(vs) != 0 {
		t.Errorf("the good page: %v", vs)
	}
	// Twice on one page: injected once.
	if vs := b.Violations(); len(vs) != 0 {
		t.Errorf("the good page again: %v", vs)
	}
}

// AxeVersion is what local/axe/package.json pins.
func TestAxePinned(t *testing.T) {
	raw, err := os.ReadFile("../../../local/axe/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.Dependencies["axe-core"]; got != AxeVersion {
		t.Errorf("local/axe/package.json pins axe-core %q, the harness reads %q", got, AxeVersion)
	}
}
