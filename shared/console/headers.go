package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
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
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	// The enrolment link's token is in a URL: no Referer may carry it on.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	// Passkeys for the console's own pages, never for a frame.
	h.Set("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)")
	h.Set("Cache-Control", "no-store")
	if secure {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

//go:embed static templates
var files embed.FS

// staticFile is a stylesheet or script served from the binary.
type staticFile struct {
	body        []byte
	contentType string
	version     string // a digest of body, so a changed file gets a new URL
}

func loadStatic() map[string]staticFile {
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	entries, err := files.ReadDir("static")
	if err != nil {
		panic("console: embedded static files: " + err.Error())
	}
	out := map[string]staticFile{}
	for _, e := range entries {
		b, err := files.ReadFile("static/" + e.Name())
		if err != nil {
			panic("console: embedded static file: " + err.Error())
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = staticFile{body: b, contentType: types[path.Ext(e.Name())], version: hex.EncodeToString(sum[:6])}
	}
	return out
}

// serveStatic serves the stylesheet or the script, to anyone: the sign-in
// page needs both.
func (h *handler) serveStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := h.static[r.PathValue("file")]
	if !ok || f.contentType == "" {
		h.message(w, r, http.StatusNotFound, msgNotFound)
		return
	}
	// Its URL carries the file's digest, so a day's caching never serves
	// an old file to a new page.
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Type", f.contentType)
	w.Write(f.body)
}

// staticURL is a static file's URL with its version.
func (h *handler) staticURL(base, name string) string {
	return base + "/static/" + name + "?v=" + h.static[name].version
}
