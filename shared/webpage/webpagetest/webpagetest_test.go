package webpagetest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
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
		w.Write([]byte(`<!doctype html><title>Harness</title><h1>Hello from the harness</h1>
<form method="post"><button id="go">Go</button></form>`))
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
