package settings

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"

	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// CookieName names the session cookie: the console's, set on the settings
// area's paths too when an operator signs in there with a passkey (one
// sign-in for both). Its value is the session's token, which is never
// logged and never put in a page.
const CookieName = portal.ConsoleCookie

// maxLinkToken bounds a link token read from the query: longer is unknown
// without forwarding it.
const maxLinkToken = 512

// forwardLink sends a link minted before links became enrolment only
// (<base>/settings/portal?token=…) to the console's enrolment page, which
// shows Continue and redeems it only from there. The settings area itself
// never signs anyone in: its sessions are the console's passkey sessions.
func (h *handler) forwardLink(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get(portal.LinkParam)
	if token == "" || len(token) > maxLinkToken {
		h.message(w, r, http.StatusNotFound, msgLinkUnknown)
		return
	}
	webpage.Redirect(w, webpage.StagePrefix(r)+portal.LinkPath+"?"+url.Values{portal.LinkParam: {token}}.Encode())
}

// signOut ends the session and clears its cookie, on these paths and on
// the console's.
func (h *handler) signOut(c *call) {
	if err := h.d.Portal.End(c.r.Context(), c.token); err != nil {
		c.fail(err)
		return
	}
	http.SetCookie(c.w, h.clearedCookie(c.r))
	console := h.clearedCookie(c.r)
	console.Path = webpage.StagePrefix(c.r) + "/console/"
	http.SetCookie(c.w, console)
	c.log.Info("signed out")
	webpage.Redirect(c.w, c.base+"/signed-out")
}

func (h *handler) signedOut(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusOK, msgSignedOutDone)
}

func (h *handler) clearedCookie(r *http.Request) *http.Cookie {
	return &http.Cookie{
		Name: CookieName, Value: "", Path: basePath(r) + "/", MaxAge: -1,
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteLaxMode,
	}
}

// session is the live session the request's cookie names: its token and
// the session, or ok false (no cookie, or portal.ErrNoSession) after the
// signed-out page was written; a fault writes the error page. Only a
// session signed in with a passkey opens the settings area: an enrolment
// session is the console's alone, to register the first passkey.
func (h *handler) session(w http.ResponseWriter, r *http.Request) (string, portal.Session, bool) {
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		h.message(w, r, http.StatusUnauthorized, msgSignedOut)
		return "", portal.Session{}, false
	}
	s, err := h.d.Portal.Session(r.Context(), ck.Value)
	if err == nil && (s.Enrolment || len(s.CredentialID) == 0) {
		err = portal.ErrNoSession
	}
	switch {
	case errors.Is(err, portal.ErrNoSession):
		// The cookie names nothing here: drop it from these paths.
		http.SetCookie(w, h.clearedCookie(r))
		h.message(w, r, http.StatusUnauthorized, msgSignedOut)
		return "", portal.Session{}, false
	case err != nil:
		h.log(r).Error("session lookup failed", "error", err.Error())
		h.message(w, r, http.StatusInternalServerError, msgInternal)
		return "", portal.Session{}, false
	}
	return ck.Value, s, true
}

// csrfToken is the synchronizer token of a session's forms: derived from
// the session's token, so it needs no storage, differs per session and
// ends with it, and reveals nothing of the token.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF compares a form's token with the session's in constant time.
func validCSRF(sessionToken, got string) bool {
	return got != "" && hmac.Equal([]byte(csrfToken(sessionToken)), []byte(got))
}
