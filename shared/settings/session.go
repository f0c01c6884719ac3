package settings

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// CookieName names the session cookie. Its value is the session's token,
// which is never logged and never put in a page.
const CookieName = "evs_settings"

// maxLinkToken bounds a link token read from the query: longer is unknown
// without asking the portal.
const maxLinkToken = 512

// signIn redeems a portal link: the session's token goes into the cookie
// and the browser moves on (303), so the link's token does not stay in the
// address bar or the history as the page shown. A refused link gives a page
// of its own and never a cookie.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" || len(token) > maxLinkToken {
		h.message(w, r, http.StatusNotFound, msgLinkUnknown)
		return
	}
	sessionToken, s, err := h.d.Portal.Redeem(r.Context(), token)
	log := h.log(r).With("path", r.URL.Path)
	switch {
	case errors.Is(err, portal.ErrLinkUnknown):
		log.Info("sign-in link refused", "reason", "unknown")
		h.message(w, r, http.StatusNotFound, msgLinkUnknown)
		return
	case errors.Is(err, portal.ErrLinkUsed):
		log.Info("sign-in link refused", "reason", "used")
		h.message(w, r, http.StatusGone, msgLinkUsed)
		return
	case errors.Is(err, portal.ErrLinkExpired):
		log.Info("sign-in link refused", "reason", "expired")
		h.message(w, r, http.StatusGone, msgLinkExpired)
		return
	case domain.ErrorCode(err) == domain.ECodeInvalid:
		log.Info("sign-in link refused", "reason", "operator disabled")
		h.message(w, r, http.StatusForbidden, msgOperatorDisabled)
		return
	case err != nil:
		log.Error("sign-in failed", "error", err.Error())
		h.message(w, r, http.StatusInternalServerError, msgInternal)
		return
	}
	// A session this browser had before ends: one browser, one session.
	if old, err := r.Cookie(CookieName); err == nil && old.Value != "" && old.Value != sessionToken {
		if err := h.d.Portal.End(r.Context(), old.Value); err != nil {
			log.Warn("previous session not ended", "error", err.Error())
		}
	}
	http.SetCookie(w, h.sessionCookie(r, sessionToken, s.ExpiresAt))
	log.Info("signed in", "account_id", s.AccountID, "operator_id", s.Operator.ID)
	webpage.Redirect(w, basePath(r)+landing(s))
}

// signOut ends the session and clears the cookie.
func (h *handler) signOut(c *call) {
	if err := h.d.Portal.End(c.r.Context(), c.token); err != nil {
		c.fail(err)
		return
	}
	http.SetCookie(c.w, h.clearedCookie(c.r))
	// The console's session, if it was that one, ends with it; its cookie
	// on these paths goes too.
	cleared := h.clearedCookie(c.r)
	cleared.Name = portal.ConsoleCookie
	http.SetCookie(c.w, cleared)
	c.log.Info("signed out")
	webpage.Redirect(c.w, c.base+"/signed-out")
}

func (h *handler) signedOut(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusOK, msgSignedOutDone)
}

// sessionCookie carries the session's token until the session's absolute
// end, to the settings area's paths only.
func (h *handler) sessionCookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: CookieName, Value: token, Path: basePath(r) + "/",
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteLaxMode,
	}
	// Expires, not Max-Age: the browser keeps the cookie no longer than
	// the session can live, whatever its clock says of the server's.
	c.Expires = expires.UTC()
	return c
}

func (h *handler) clearedCookie(r *http.Request) *http.Cookie {
	return &http.Cookie{
		Name: CookieName, Value: "", Path: basePath(r) + "/", MaxAge: -1,
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteLaxMode,
	}
}

// session is the live session the request's cookie names: its token and
// the session, or ok false (no cookie, or portal.ErrNoSession) after the
// signed-out page was written; a fault writes the error page.
func (h *handler) session(w http.ResponseWriter, r *http.Request) (string, portal.Session, bool) {
	ck, err := r.Cookie(CookieName)
	fromConsole := false
	if err != nil || ck.Value == "" {
		// One sign-in for both: the console's passkey session.
		ck, err = r.Cookie(portal.ConsoleCookie)
		fromConsole = true
	}
	if err != nil || ck.Value == "" {
		h.message(w, r, http.StatusUnauthorized, msgSignedOut)
		return "", portal.Session{}, false
	}
	s, err := h.d.Portal.Session(r.Context(), ck.Value)
	if err == nil && fromConsole && (s.Enrolment || len(s.CredentialID) == 0) {
		// A console session that has not signed in with a passkey yet
		// (enrolment) is the console's alone.
		err = portal.ErrNoSession
	}
	switch {
	case errors.Is(err, portal.ErrNoSession):
		// The cookie names nothing any more: drop it.
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
