package webpage

import (
	"net/http"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/portal"
)

// Kind is the session a route takes: a full one (signed in with a
// passkey), or any, an enrolment session included (which may only register
// a passkey).
type Kind int

const (
	Full Kind = iota
	AnySession
)

// IsFull reports whether the session was started by a passkey: a link's
// session proves only that someone held the link.
func IsFull(s portal.Session) bool { return !s.Enrolment && len(s.CredentialID) > 0 }

// Need is what a route asks of the operator: any one of its permissions;
// none (Anyone) for anyone signed in.
type Need []string

// Anyone is the need of a route open to everyone signed in.
var Anyone = Need(nil)

// MetBy reports whether the session's operator holds what n asks.
func (n Need) MetBy(s portal.Session) bool { return len(n) == 0 || slices.ContainsFunc(n, s.Can) }

func (n Need) String() string { return strings.Join(n, " or ") }

// Page serves a GET to a signed-in operator holding what n asks.
func (a *Area) Page(k Kind, n Need, serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := a.signedIn(w, r, modePage, k)
		if !ok {
			return
		}
		if !n.MetBy(c.Session) {
			c.Forbidden(n)
			return
		}
		serve(c)
	}
}

// Form serves a form's POST: a live session, a same-origin request, the
// session's CSRF token, the permission, then (withAction) a well-formed
// action id, in that order; any refusal changes nothing.
func (a *Area) Form(k Kind, n Need, withAction bool, serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := a.signedIn(w, r, modeForm, k)
		if !ok || !c.sameOrigin() || !c.parseForm() {
			return
		}
		if !validCSRF(c.Token, r.PostForm.Get("csrf")) {
			c.Log.Warn("form without a valid CSRF token refused")
			c.Message(http.StatusForbidden, MsgCSRF())
			return
		}
		if !n.MetBy(c.Session) {
			c.Forbidden(n)
			return
		}
		if withAction {
			id := r.PostForm.Get("action_id")
			if !ValidActionID(id) {
				c.Message(http.StatusBadRequest, MsgStaleForm())
				return
			}
			c.ActionID = id
			c.Log = c.Log.With("action_id", id)
		}
		serve(c)
	}
}

// API serves a script's JSON POST: a live session, a same-origin request,
// a JSON body, the CSRF token in X-CSRF-Token, the permission.
func (a *Area) API(k Kind, n Need, serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := a.signedIn(w, r, modeAPI, k)
		if !ok || !c.sameOrigin() || !c.jsonBody() {
			return
		}
		if !validCSRF(c.Token, r.Header.Get("X-CSRF-Token")) {
			c.Log.Warn("script request without a valid CSRF token refused")
			c.Message(http.StatusForbidden, MsgCSRF())
			return
		}
		if !n.MetBy(c.Session) {
			c.Forbidden(n)
			return
		}
		serve(c)
	}
}

// OpenAPI serves a script's JSON POST made before there is a session (the
// sign-in's): same-origin and JSON only, which a cross-site form can send
// neither of.
func (a *Area) OpenAPI(serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := a.visitor(w, r, modeAPI)
		if !c.sameOrigin() || !c.jsonBody() {
			return
		}
		serve(c)
	}
}

// OpenForm serves a form's POST made before there is a session (an
// enrolment link's Continue): same-origin and a readable form; the page's
// own check (a cookie it set) is the caller's.
func (a *Area) OpenForm(serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := a.visitor(w, r, modeForm)
		if !c.sameOrigin() || !c.parseForm() {
			return
		}
		serve(c)
	}
}

// OpenPage serves a GET to anyone, signed in or not.
func (a *Area) OpenPage(serve func(*Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { serve(a.visitor(w, r, modePage)) }
}
