package console

import (
	"embed"
	"net/http"

	"github.com/evs-kyb/evs/shared/webpage"
)

// CSP is every answer's Content-Security-Policy: the console's own
// stylesheet and passkey script only, no inline script or style (nor style
// attributes), never framed, forms posting only back to the console, and
// the script talking to the console alone.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders are set on every answer before anything else. Pages are
// never stored (a signed-out browser's back button must not bring a
// dossier back); static files override Cache-Control.
func securityHeaders(h http.Header, secure bool) {
	webpage.SecurityHeaders(h, CSP, secure)
	// Passkeys for the console's own pages, never for a frame.
	h.Set("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)")
}

//go:embed static templates
var files embed.FS

func loadStatic() webpage.Static { return webpage.LoadStatic("console", files, "static") }

// serveStatic serves the stylesheet or the script, to anyone: the sign-in
// page needs both.
func (h *handler) serveStatic(w http.ResponseWriter, r *http.Request) {
	if !h.static.Serve(w, r.PathValue("file")) {
		h.message(w, r, http.StatusNotFound, msgNotFound)
	}
}

// staticURL is a static file's URL with its version.
func (h *handler) staticURL(base, name string) string { return h.static.URL(base, name) }
