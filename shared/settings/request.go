package settings

import (
	"crypto/rand"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// maxForm bounds a form's body: the largest form holds a URL, a
// description and a handful of checkboxes.
const maxForm = 64 << 10

// call is one signed-in request being served.
type call struct {
	h     *handler
	w     http.ResponseWriter
	r     *http.Request
	s     portal.Session
	token string // the session's, for the CSRF token only
	base  string // the settings area's path as the browser sees it
	log   *slog.Logger
	// actionID names the change a form submits (POST only).
	actionID string
}

// need is what a route asks of the operator: any one of its permissions;
// none for anyone signed in.
type need []string

// The needs of the routes.
var (
	anyone          = need(nil)
	manageEndpoints = need{domain.PermWebhookEndpointEdit}
	// Who may see the deliveries may see where they go: reading endpoints
	// (never their secrets) takes either permission, as
	// subscriptions.Service allows.
	readEndpoints  = need{domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView}
	viewDeliveries = need{domain.PermWebhookDeliveryView}
	manageSettings = need{domain.PermAccountSettingsManage}
)

// metBy reports whether the session's operator holds what n asks.
func (n need) metBy(s portal.Session) bool { return len(n) == 0 || slices.ContainsFunc(n, s.Can) }

func (n need) String() string { return strings.Join(n, " or ") }

// page serves a GET to a signed-in operator holding what n asks.
func (h *handler) page(n need, serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := h.signedIn(w, r)
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

// change serves a form's POST that changes something: a live session, a
// same-origin request, the session's CSRF token, the permission, then a
// well-formed action id, in that order; any refusal changes nothing.
func (h *handler) change(n need, serve func(*call)) http.HandlerFunc {
	return h.post(n, true, serve)
}

// post serves a form's POST; withAction says whether it names an audited
// change by an action id (sign-out does not).
func (h *handler) post(n need, withAction bool, serve func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, ok := h.signedIn(w, r)
		if !ok {
			return
		}
		if err := h.origin.Check(r); err != nil {
			c.log.Warn("cross-origin form refused", "error", err.Error())
			c.message(http.StatusForbidden, msgCSRF)
			return
		}
		if !c.parseForm() {
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

func (h *handler) signedIn(w http.ResponseWriter, r *http.Request) (*call, bool) {
	token, s, ok := h.session(w, r)
	if !ok {
		return nil, false
	}
	log := h.log(r).With("account_id", s.AccountID, "operator_id", s.Operator.ID, "method", r.Method, "path", r.URL.Path)
	return &call{h: h, w: w, r: r, s: s, token: token, base: basePath(r), log: log}, true
}

// parseForm reads a URL-encoded form body, at most maxForm bytes; only the
// body counts (PostForm), never the query.
func (c *call) parseForm() bool {
	mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
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

// actor is the signed-in operator making the form's change, or reading
// (a read names no change: actionID is empty on a GET).
func (c *call) actor() domain.Actor {
	return domain.Actor{AccountID: c.s.AccountID, OperatorID: c.s.Operator.ID, ActionID: c.actionID, RequestID: webpage.RequestID(c.r.Context())}
}

// actionIDPattern is what newActionID makes.
var actionIDPattern = regexp.MustCompile(`^web-[A-Z2-7]{26}$`)

// newActionID names one form as rendered: submitting it twice is one
// change, since the services apply an action id once.
func newActionID() string { return "web-" + rand.Text() }

func validActionID(s string) bool { return actionIDPattern.MatchString(s) }

// log is the request's logger: the one its context carries (with the
// request id), else the one given, else slog's default.
func (h *handler) log(r *http.Request) *slog.Logger { return webpage.Logger(r, h.d.Log) }

// basePath is the settings area's path as the browser sees it: behind
// API Gateway's stage prefix, when there is one.
func basePath(r *http.Request) string { return webpage.StagePrefix(r) + "/settings" }

// pathID is the positive id in the path's {id}, or ok false after a 404.
func (c *call) pathID() (int64, bool) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		c.message(http.StatusNotFound, msgNotFound)
		return 0, false
	}
	return id, true
}

// forbidden answers an operator who lacks what n asks.
func (c *call) forbidden(n need) {
	c.log.Info("settings action forbidden", "permission", n.String())
	c.messageWith(http.StatusForbidden, msgForbidden, "Your operator lacks the "+n.String()+" permission. Ask your administrator for it.")
}

// fail answers a service's refusal as its page, and a fault as the error
// page (logged, never shown).
func (c *call) fail(err error) {
	switch domain.ErrorCode(err) {
	case domain.ECodeNotFound:
		c.messageWith(http.StatusNotFound, msgNotFound, domain.ErrorMessage(err))
	case domain.ECodeForbidden, domain.ECodeUnauthorized:
		c.log.Info("settings action refused", "reason", domain.ErrorMessage(err))
		c.messageWith(http.StatusForbidden, msgForbidden, domain.ErrorMessage(err))
	case domain.ECodeConflict:
		c.log.Info("settings action conflict", "reason", domain.ErrorMessage(err))
		c.messageWith(http.StatusConflict, msgConflict, domain.ErrorMessage(err))
	case domain.ECodeInvalid, domain.ECodeBadRequest:
		c.messageWith(http.StatusUnprocessableEntity, msgInvalid, domain.Refusal(err))
	default:
		c.log.Error("settings request failed", "error", err.Error())
		c.message(http.StatusInternalServerError, msgInternal)
	}
}
