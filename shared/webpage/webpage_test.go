package webpage_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evs-kyb/evs/shared/webpage"
)

// Only a prefix made of path segments is believed: anything else in the
// header is ignored, so no link or redirect built on it leaves the site.
func TestStagePrefix(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", ""},
		{"/prod", "/prod"},
		{"/a/b.c~d", "/a/b.c~d"},
		{"//evil.example.com", ""},
		{"https://evil.example.com", ""},
		{"/prod?x=1", ""},
		{"/" + strings.Repeat("a", 200), ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/settings/", nil)
		r.Header.Set("X-Forwarded-Prefix", tc.header)
		if got := webpage.StagePrefix(r); got != tc.want {
			t.Errorf("StagePrefix(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

// Static files are served with their type and a day's caching under a URL
// that changes with their content; a name it does not hold writes nothing.
func TestStatic(t *testing.T) {
	s := webpage.LoadStatic("test", fstest.MapFS{"static/a.css": {Data: []byte("a{}")}, "static/notes.txt": {Data: []byte("x")}}, "static")
	w := httptest.NewRecorder()
	if !s.Serve(w, "a.css") || w.Header().Get("Content-Type") != "text/css; charset=utf-8" || w.Body.String() != "a{}" ||
		w.Header().Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("a.css served as %v %q", w.Header(), w.Body.String())
	}
	for _, name := range []string{"notes.txt", "missing.js"} {
		if w := httptest.NewRecorder(); s.Serve(w, name) || w.Body.Len() != 0 {
			t.Errorf("%s was served", name)
		}
	}
	if u := s.URL("/console", "a.css"); !strings.HasPrefix(u, "/console/static/a.css?v=") || len(u) <= len("/console/static/a.css?v=") {
		t.Errorf("URL = %q", u)
	}
}
