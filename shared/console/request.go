package console

import (
	"crypto/rand"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// maxForm bounds a form's body: the largest holds a reason, a note and a
// business activity summary.
const maxForm = 64 << 10

// mode is how a request is answered: a page (a refusal of the session
// sends the browser to sign in), a form's post (a message page), or the
// passkey script's JSON.
type mode int

const (
	modePage mode = iota
	modeForm
	modeAPI
)

// sessionKind is the session a route takes: a full one (signed in with a
// passkey), or any, an enrolment session included (which may only
// register a passkey).
type sessionKind int

const (
	full sessionKind = iota
	enrolling
)

// isFull reports whether the session was started by a passkey: a link's
// session proves only that someone held the link.
func isFull(s portal.Session) bool { return !s.Enrolment && len(s.CredentialID) > 0 }

// call is one request being served.
type call struct {
	h     *handler
	w     http.ResponseWriter
	r     *http.Request
	mode  mode
	s     portal.Session
	token string // the session's, for the CSRF token and sign-out only
	base  string // the console's path as the browser sees it
	log   *slog.Logger
	// actionID names the change a form submits (forms that take one).
	actionID string
}

// need is what a route asks of the operator: any one of its permissions;
// none for anyone signed in.
type need []string

var anyone = need(nil)

func (n need) metBy(s portal.Session) bool { return len(n) == 0 || slices.ContainsFunc(n, s.Can) }

func (n need) String() string { return strings.Join(n, " or ") }

// page serves a GET to a signed-in operator holding what n asks.
func (h *handler) page(k sessionKind, n need, serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := h.signedIn(w, r, modePage, k)
		if !ok {
			return
		}
		if !n.metBy(c.s) {
			c.forbidden(n)
			return
		}
		serve(c)
	}
}

// form serves a form's POST: a live session, a same-origin request, the
// session's CSRF token, the permission, then (withAction) a well-formed
// action id, in that order; any refusal changes nothing.
func (h *handler) form(k sessionKind, n need, withAction bool, serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := h.signedIn(w, r, modeForm, k)
		if !ok || !c.sameOrigin() || !c.parseForm() {
			return
		}
		if !validCSRF(c.token, r.PostForm.Get("csrf")) {
			c.log.Warn("form without a valid CSRF token refused")
			c.message(http.StatusForbidden, msgCSRF)
			return
		}
		if !n.metBy(c.s) {
			c.forbidden(n)
			return
		}
		if withAction {
			id := r.PostForm.Get("action_id")
			if !validActionID(id) {
				c.message(http.StatusBadRequest, msgStaleForm)
				return
			}
			c.actionID = id
			c.log = c.log.With("action_id", id)
		}
		serve(c)
	}
}

// api serves the passkey script's JSON POST: a live session, a same-origin
// request, a JSON body, the CSRF token in X-CSRF-Token, the permission.
func (h *handler) api(k sessionKind, n need, serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := h.signedIn(w, r, modeAPI, k)
		if !ok || !c.sameOrigin() || !c.jsonBody() {
			return
		}
		if !validCSRF(c.token, r.Header.Get("X-CSRF-Token")) {
			c.log.Warn("script request without a valid CSRF token refused")
			c.message(http.StatusForbidden, msgCSRF)
			return
		}
		if !n.metBy(c.s) {
			c.forbidden(n)
			return
		}
		serve(c)
	}
}

// signedOutAPI serves the sign-in's JSON POSTs, made before there is a
// session: same-origin and JSON only (a cross-site form can send neither).
func (h *handler) signedOutAPI(serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{h: h, w: w, r: r, mode: modeAPI, base: basePath(r), log: h.log(r).With("method", r.Method, "path", r.URL.Path)}
		if !c.sameOrigin() || !c.jsonBody() {
			return
		}
		serve(c)
	}
}

// sameOrigin refuses a request the browser marks as coming from another
// site (http.CrossOriginProtection).
func (c *call) sameOrigin() bool {
	if err := c.h.origin.Check(c.r); err != nil {
		c.log.Warn("cross-origin request refused", "error", err.Error())
		c.message(http.StatusForbidden, msgCSRF)
		return false
	}
	return true
}

// parseForm reads a URL-encoded form body, at most maxForm bytes; only the
// body counts (PostForm), never the query.
func (c *call) parseForm() bool {
	if mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		c.message(http.StatusUnsupportedMediaType, msgBadForm)
		return false
	}
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, maxForm)
	if err := c.r.ParseForm(); err != nil {
		c.message(http.StatusBadRequest, msgBadForm)
		return false
	}
	return true
}

// jsonBody refuses a script request that is not JSON.
func (c *call) jsonBody() bool {
	if mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type")); mt != "application/json" {
		c.message(http.StatusUnsupportedMediaType, msgBadForm)
		return false
	}
	return true
}

// actor is the signed-in operator making the call's change.
func (c *call) actor() domain.Actor {
	return domain.Actor{AccountID: c.s.AccountID, OperatorID: c.s.Operator.ID, ActionID: c.actionID, RequestID: webpage.RequestID(c.r.Context())}
}

// actionIDPattern is what newActionID makes: it names a decision's
// execution too, so it keeps to the characters Step Functions takes.
var actionIDPattern = regexp.MustCompile(`^web-[A-Z2-7]{26}$`)

// newActionID names one form as rendered: submitting it twice is one
// change, since the services (and the workflow's execution names) apply
// an action id once.
func newActionID() string { return "web-" + rand.Text() }

func validActionID(s string) bool { return actionIDPattern.MatchString(s) }

// log is the request's logger: the one its context carries, else the one
// given, else slog's default.
func (h *handler) log(r *http.Request) *slog.Logger { return webpage.Logger(r, h.d.Log) }

// forbidden answers an operator who lacks what n asks.
func (c *call) forbidden(n need) {
	c.log.Info("console action forbidden", "permission", n.String())
	c.messageWith(http.StatusForbidden, msgForbidden, "You lack the "+n.String()+" permission. Ask your administrator for it.")
}
