package settings

import (
	"embed"
	"net/http"

	"github.com/evs-kyb/evs/shared/webpage"
)

// CSP is every answer's Content-Security-Policy: the app's own stylesheet
// and script file only, no inline script or style (nor style attributes),
// never framed, forms posting only back to the app.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders are set on every answer before anything else. Pages are
// never stored (a secret is shown once; a signed-out browser's back button
// must not bring a page back); static files override Cache-Control.
func securityHeaders(h http.Header, secure bool) {
	webpage.SecurityHeaders(h, CSP, secure)
}

//go:embed static templates
var files embed.FS

func loadStatic() webpage.Static { return webpage.LoadStatic("settings", files, "static") }

// serveStatic serves a stylesheet or script, to anyone: the sign-in
// refusals and the signed-out page need the stylesheet too.
func (h *handler) serveStatic(w http.ResponseWriter, r *http.Request) {
	if !h.static.Serve(w, r.PathValue("file")) {
		h.message(w, r, http.StatusNotFound, msgNotFound)
	}
}

// staticURL is a static file's URL with its version.
func (h *handler) staticURL(base, name string) string { return h.static.URL(base, name) }
