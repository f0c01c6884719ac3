package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// CookieName names the session cookie. Its value is the session's token,
// which is never logged and never put in a page.
const CookieName = portal.ConsoleCookie

// signedIn is the live session the request's cookie names, of the kind
// the route takes; otherwise the refusal is written in the call's mode (a
// page sends the browser to sign in, or an enrolment session to its
// passkey page) and ok is false.
func (h *handler) signedIn(w http.ResponseWriter, r *http.Request, m mode, k sessionKind) (*call, bool) {
	c := &call{h: h, w: w, r: r, mode: m, base: basePath(r), log: h.log(r).With("method", r.Method, "path", r.URL.Path)}
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		c.signedOut()
		return nil, false
	}
	s, err := h.d.Portal.Session(r.Context(), ck.Value)
	switch {
	case errors.Is(err, portal.ErrNoSession):
		// The cookie names nothing any more: drop it.
		http.SetCookie(w, h.clearedCookie(r))
		http.SetCookie(w, h.clearedSettingsCookie(r))
		c.signedOut()
		return nil, false
	case err != nil:
		c.log.Error("session lookup failed", "error", err.Error())
		c.message(http.StatusInternalServerError, msgInternal)
		return nil, false
	}
	c.s, c.token = s, ck.Value
	c.log = c.log.With("account_id", s.AccountID, "operator_id", s.Operator.ID)
	if k == full && !isFull(s) {
		if m == modePage {
			webpage.Redirect(w, c.base+"/enrol/passkey")
		} else {
			c.message(http.StatusForbidden, msgEnrolOnly)
		}
		return nil, false
	}
	return c, true
}

// signedOut answers a request without a session: a page goes to the
// sign-in page, anything else is told.
func (c *call) signedOut() {
	if c.mode == modePage {
		webpage.Redirect(c.w, c.base+"/")
		return
	}
	c.message(http.StatusUnauthorized, msgSignedOut)
}

// lookup is the live session the cookie names, without answering anything.
func (h *handler) lookup(r *http.Request) (string, portal.Session, bool) {
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return "", portal.Session{}, false
	}
	s, err := h.d.Portal.Session(r.Context(), ck.Value)
	if err != nil {
		return "", portal.Session{}, false
	}
	return ck.Value, s, true
}

// startSession puts a new session's token in the cookie, ending the one
// the browser had (one browser, one session).
func (h *handler) startSession(c *call, token string, s portal.Session) {
	if old, err := c.r.Cookie(CookieName); err == nil && old.Value != "" && old.Value != token {
		if err := h.d.Portal.End(c.r.Context(), old.Value); err != nil {
			c.log.Warn("previous session not ended", "error", err.Error())
		}
	}
	http.SetCookie(c.w, h.sessionCookie(c.r, token, s.ExpiresAt))
	if !s.Enrolment {
		http.SetCookie(c.w, h.settingsCookie(c.r, token, s.ExpiresAt))
	}
}

// sessionCookie carries the session's token until the session's absolute
// end, to the console's paths only; settingsCookie carries the same to the
// settings area's, so one passkey sign-in serves both (never to the API's
// paths, which have no use for it).
func (h *handler) sessionCookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	return &http.Cookie{
		Name: CookieName, Value: token, Path: basePath(r) + "/", Expires: expires.UTC(),
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteLaxMode,
	}
}

func (h *handler) settingsCookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	c := h.sessionCookie(r, token, expires)
	c.Path = settingsPath(r) + "/"
	return c
}

func (h *handler) clearedCookie(r *http.Request) *http.Cookie {
	return &http.Cookie{
		Name: CookieName, Value: "", Path: basePath(r) + "/", MaxAge: -1,
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteLaxMode,
	}
}

func (h *handler) clearedSettingsCookie(r *http.Request) *http.Cookie {
	c := h.clearedCookie(r)
	c.Path = settingsPath(r) + "/"
	return c
}

// signOut ends the session and clears the cookie.
func (h *handler) signOut(c *call) {
	if err := h.d.Portal.End(c.r.Context(), c.token); err != nil {
		c.fail(err)
		return
	}
	http.SetCookie(c.w, h.clearedCookie(c.r))
	http.SetCookie(c.w, h.clearedSettingsCookie(c.r))
	c.log.Info("signed out")
	webpage.Redirect(c.w, c.base+"/")
}

// csrfToken is the synchronizer token of a session's forms and script
// requests: derived from the session's token, so it needs no storage,
// differs per session and ends with it, and reveals nothing of the token.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF compares a request's token with the session's in constant time.
func validCSRF(sessionToken, got string) bool {
	return got != "" && hmac.Equal([]byte(csrfToken(sessionToken)), []byte(got))
}
