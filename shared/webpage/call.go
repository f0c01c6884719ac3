package webpage

import (
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
)

// maxForm bounds a form's body: the largest holds a reason, a note and a
// business activity summary.
const maxForm = 64 << 10

// mode is how a request is answered: a page (a refusal of the session
// sends the browser to sign in), a form's post (a message page), or a
// script's JSON.
type mode int

const (
	modePage mode = iota
	modeForm
	modeAPI
)

// Call is one request being served by an area's page.
type Call struct {
	W http.ResponseWriter
	R *http.Request
	// Session is the signed-in operator's (zero for a visitor), Token its
	// token: for the CSRF token and sign-out only, never logged or shown.
	Session portal.Session
	Token   string
	// Base is the area's path as the browser sees it.
	Base string
	Log  *slog.Logger
	// ActionID names the change a form submits (forms that take one).
	ActionID string

	area *Area
	mode mode
}

// visitor is a call from someone who may not be signed in.
func (a *Area) visitor(w http.ResponseWriter, r *http.Request, m mode) *Call {
	return &Call{W: w, R: r, Base: a.Base(r), Log: a.s.log(r).With("method", r.Method, "path", r.URL.Path), area: a, mode: m}
}

// sameOrigin refuses a request the browser marks as coming from another
// site (http.CrossOriginProtection), and one that carries neither Origin
// nor Sec-Fetch-Site. CrossOriginProtection lets the latter through, as
// not a browser's; but every request these pages make is a browser's, and
// every browser they run in sends Origin with a POST (and Sec-Fetch-Site,
// the recent ones). A request with neither cannot be told same-origin,
// so it changes nothing.
func (c *Call) sameOrigin() bool {
	if c.R.Header.Get("Origin") == "" && c.R.Header.Get("Sec-Fetch-Site") == "" {
		c.Log.Warn("request without Origin or Sec-Fetch-Site refused")
		c.Message(http.StatusForbidden, MsgNoOrigin())
		return false
	}
	if err := c.area.s.origin.Check(c.R); err != nil {
		c.Log.Warn("cross-origin request refused", "error", err.Error())
		c.Message(http.StatusForbidden, MsgCSRF())
		return false
	}
	return true
}

// parseForm reads a URL-encoded form body, at most maxForm bytes; only the
// body counts (PostForm), never the query.
func (c *Call) parseForm() bool {
	if mt, _, _ := mime.ParseMediaType(c.R.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		c.Message(http.StatusUnsupportedMediaType, MsgBadForm())
		return false
	}
	c.R.Body = http.MaxBytesReader(c.W, c.R.Body, maxForm)
	if err := c.R.ParseForm(); err != nil {
		c.Message(http.StatusBadRequest, MsgBadForm())
		return false
	}
	return true
}

// jsonBody refuses a script request that is not JSON.
func (c *Call) jsonBody() bool {
	if mt, _, _ := mime.ParseMediaType(c.R.Header.Get("Content-Type")); mt != "application/json" {
		c.Message(http.StatusUnsupportedMediaType, MsgBadForm())
		return false
	}
	return true
}

// Actor is the signed-in operator making the call's change, or reading (a
// read names no change: ActionID is empty on a GET).
func (c *Call) Actor() domain.Actor {
	return domain.Actor{AccountID: c.Session.AccountID, OperatorID: c.Session.Operator.ID, ActionID: c.ActionID, RequestID: RequestID(c.R.Context())}
}

// PathID is the positive id in the path's {id}, or ok false after a 404.
func (c *Call) PathID() (int64, bool) {
	id, err := strconv.ParseInt(c.R.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		c.Message(http.StatusNotFound, MsgNotFound())
		return 0, false
	}
	return id, true
}

// Forbidden answers an operator who lacks what n asks.
func (c *Call) Forbidden(n Need) {
	c.Log.Info(c.area.spec.Name+" action forbidden", "permission", n.String())
	c.MessageWith(http.StatusForbidden, MsgForbidden(), "You lack the "+n.String()+" permission. Ask your administrator for it.")
}

// Redirect sends the browser on to a path under the area.
func (c *Call) Redirect(path string) { Redirect(c.W, c.Base+path) }
