package webpage

import (
	"errors"
	"net/http"
	"time"

	"github.com/evs-kyb/evs/shared/portal"
)

// CookieName names the session cookie, set on every mounted area's path
// (never the API's, which has no use for it), so one passkey sign-in
// serves them all. Its value is the session's token, which is never logged
// and never put in a page.
const CookieName = portal.ConsoleCookie

// signedIn is the live session the request's cookie names, of the kind the
// route takes; otherwise the refusal is written in the call's mode and ok
// is false.
func (a *Area) signedIn(w http.ResponseWriter, r *http.Request, m mode, k Kind) (*Call, bool) {
	c := a.visitor(w, r, m)
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		c.signedOut()
		return nil, false
	}
	s, err := a.s.cfg.Sessions.Session(r.Context(), ck.Value)
	switch {
	case errors.Is(err, portal.ErrNoSession):
		// The cookie names nothing any more: drop it everywhere.
		a.s.clearCookies(w, r)
		c.signedOut()
		return nil, false
	case err != nil:
		c.Log.Error("session lookup failed", "error", err.Error())
		c.Message(http.StatusInternalServerError, MsgInternal())
		return nil, false
	case !IsFull(s) && a.spec.EnrolPage == "":
		// An enrolment session is another area's, to register the first
		// passkey: here it is none, and only this area's cookie goes.
		http.SetCookie(w, a.cookie(r, "", time.Time{}))
		c.signedOut()
		return nil, false
	}
	c.Session, c.Token = s, ck.Value
	c.Log = c.Log.With("account_id", s.AccountID, "operator_id", s.Operator.ID)
	if k == Full && !IsFull(s) {
		if m == modePage {
			c.Redirect(a.spec.EnrolPage)
		} else {
			c.Message(http.StatusForbidden, MsgEnrolOnly())
		}
		return nil, false
	}
	return c, true
}

// signedOut answers a request without a session: a page goes to the
// area's sign-in page where it has one; anything else is told.
func (c *Call) signedOut() {
	if c.mode == modePage && c.area.spec.SignInPage {
		c.Redirect("/")
		return
	}
	c.Message(http.StatusUnauthorized, MsgSignedOut())
}

// Lookup is the live session the request's cookie names, without
// answering anything.
func (a *Area) Lookup(r *http.Request) (portal.Session, bool) {
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return portal.Session{}, false
	}
	s, err := a.s.cfg.Sessions.Session(r.Context(), ck.Value)
	if err != nil {
		return portal.Session{}, false
	}
	return s, true
}

// StartSession puts a new session's token in the cookie, ending the one
// the browser had (one browser, one session). An enrolment session's
// cookie goes only to the areas that take one.
func (c *Call) StartSession(token string, s portal.Session) {
	if old, err := c.R.Cookie(CookieName); err == nil && old.Value != "" && old.Value != token {
		if err := c.area.s.cfg.Sessions.End(c.R.Context(), old.Value); err != nil {
			c.Log.Warn("previous session not ended", "error", err.Error())
		}
	}
	for _, a := range c.area.s.areas {
		if s.Enrolment && a.spec.EnrolPage == "" {
			continue
		}
		http.SetCookie(c.W, a.cookie(c.R, token, s.ExpiresAt))
	}
	c.Session, c.Token = s, token
}

// signOut ends the session and clears its cookie from every area.
func (a *Area) signOut(c *Call) {
	if err := a.s.cfg.Sessions.End(c.R.Context(), c.Token); err != nil {
		c.Fail(err)
		return
	}
	a.s.clearCookies(c.W, c.R)
	c.Log.Info("signed out")
	c.Redirect(a.spec.SignedOut)
}

// cookie carries the session's token to the area's paths until the
// session's absolute end; an empty token clears it.
func (a *Area) cookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	ck := &http.Cookie{
		Name: CookieName, Value: token, Path: a.Base(r) + "/",
		HttpOnly: true, Secure: a.s.cfg.Secure(r), SameSite: http.SameSiteLaxMode,
	}
	if token == "" {
		ck.MaxAge = -1
	} else {
		ck.Expires = expires.UTC()
	}
	return ck
}

func (s *Server) clearCookies(w http.ResponseWriter, r *http.Request) {
	for _, a := range s.areas {
		http.SetCookie(w, a.cookie(r, "", time.Time{}))
	}
}
