package gateway

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/httplambda"
)

// TestDocsRoutes: make local's pages beside the API. /docs/ is the built
// reference, or a 404 saying to build it; /docs redirects there;
// /openapi.yaml is the api-description function's route, as on a stage.
func TestDocsRoutes(t *testing.T) {
	dir := t.TempDir()
	built := filepath.Join(dir, "index.html")
	page := "<!DOCTYPE html><title>Entity Verification Service</title>"
	if err := os.WriteFile(built, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	gateway := func(docsFile string) *Gateway {
		return &Gateway{
			Log:       log,
			Functions: map[string]ProxyFunc{"api-description": ProxyFunc(httplambda.New(api.NewDescription(), log))},
			DocsFile:  docsFile,
		}
	}
	tests := []struct {
		name, docsFile, method, path string
		status                       int
		contentType                  string
		// body: the exact body; contains: a part of it; header: one more.
		body, contains string
		header         [2]string
	}{
		{name: "the reference", docsFile: built, method: "GET", path: "/docs/",
			status: http.StatusOK, contentType: "text/html", body: page},
		{name: "HEAD of it", docsFile: built, method: "HEAD", path: "/docs/", status: http.StatusOK, contentType: "text/html"},
		{name: "without the slash", docsFile: built, method: "GET", path: "/docs",
			status: http.StatusMovedPermanently, header: [2]string{"Location", "/docs/"}},
		{name: "not built", docsFile: filepath.Join(dir, "missing.html"), method: "GET", path: "/docs/",
			status: http.StatusNotFound, contentType: "text/plain", contains: "run make docs"},
		{name: "another method", docsFile: built, method: "POST", path: "/docs/",
			status: http.StatusMethodNotAllowed, contentType: "text/plain", header: [2]string{"Allow", "GET, HEAD"}},
		{name: "below it: API Gateway's 404", docsFile: built, method: "GET", path: "/docs/other.html",
			status: http.StatusNotFound, contentType: "application/json", contains: `"not_found"`},
		{name: "no docs file: no docs", docsFile: "", method: "GET", path: "/docs/",
			status: http.StatusNotFound, contentType: "application/json", contains: `"not_found"`},
		{name: "the description", docsFile: built, method: "GET", path: "/openapi.yaml",
			status: http.StatusOK, contentType: "application/yaml", body: string(api.OpenAPIDocument())},
		{name: "the description, another method", docsFile: built, method: "DELETE", path: "/openapi.yaml",
			status: http.StatusMethodNotAllowed, contentType: "application/json", header: [2]string{"Allow", "GET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			gateway(tt.docsFile).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %.200s", rec.Code, tt.status, body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			if tt.body != "" && body != tt.body {
				t.Errorf("body %.200q (%d bytes), want %.200q (%d bytes)", body, len(body), tt.body, len(tt.body))
			}
			if !strings.Contains(body, tt.contains) {
				t.Errorf("body %.300q, want it to say %q", body, tt.contains)
			}
			if k, v := tt.header[0], tt.header[1]; k != "" && rec.Header().Get(k) != v {
				t.Errorf("%s %q, want %q", k, rec.Header().Get(k), v)
			}
			if strings.HasPrefix(tt.contentType, "application/json") && !json.Valid(rec.Body.Bytes()) {
				t.Errorf("not JSON: %.200s", body)
			}
		})
	}
}
