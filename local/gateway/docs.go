package gateway

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
)

// DocsPath is where the gateway serves the API reference, DocsFile, when it
// has one; DocsPath without its slash redirects there. API Gateway serves
// no such page: this is make local's alone (a deployed stage publishes the
// description itself, GET /openapi.yaml, which is a route like any other).
const DocsPath = "/docs/"

// docsNotBuilt is the answer at DocsPath while DocsFile does not exist.
const docsNotBuilt = "The API reference is not built: run make docs (it writes build/docs/index.html from shared/api/openapi.yaml), then reload.\n"

// serveDocs answers a request for the API reference, and reports whether
// it was one: /docs redirects to /docs/, which is DocsFile as it is on disk
// now (so a make docs while the gateway runs shows on reload), or a 404
// saying to build it. Without a DocsFile the gateway serves no docs.
func (g *Gateway) serveDocs(w http.ResponseWriter, r *http.Request) (int, bool) {
	if g.DocsFile == "" {
		return 0, false
	}
	switch r.URL.Path {
	case DocsPath[:len(DocsPath)-1]:
		http.Redirect(w, r, DocsPath, http.StatusMovedPermanently)
		return http.StatusMovedPermanently, true
	case DocsPath:
	default:
		return 0, false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return plainText(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here; use GET.\n"), true
	}
	page, err := os.ReadFile(g.DocsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return plainText(w, http.StatusNotFound, docsNotBuilt), true
	case err != nil:
		g.Log.Error("gateway: docs unreadable", "file", g.DocsFile, "error", err.Error())
		return plainText(w, http.StatusInternalServerError, "The API reference could not be read: "+err.Error()+"\n"), true
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Rebuilt pages show at once.
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.Write(page)
	return http.StatusOK, true
}

func plainText(w http.ResponseWriter, status int, msg string) int {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(msg))
	return status
}
