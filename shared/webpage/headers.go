package webpage

import "net/http"

// CSP is every page's Content-Security-Policy: the function's own
// stylesheet and scripts only, no inline script or style (nor style
// attributes), never framed, forms posting only back to the function, and
// the passkey script talking to it alone.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders are set on every answer before anything else. Pages are
// never stored (a secret or a dossier shown must not come back through a
// signed-out browser's back button); static files override Cache-Control.
func SecurityHeaders(h http.Header, secure bool) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	// Sign-in and enrolment links carry their token in the URL: no Referer
	// may carry it on.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	// Passkeys for the function's own pages, never for a frame.
	h.Set("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)")
	h.Set("Cache-Control", "no-store")
	if secure {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
}
