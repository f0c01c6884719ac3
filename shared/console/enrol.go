package console

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webpage"
)

// EnrolCookie names the enrolment page's anti-CSRF cookie: a random value
// set with the page and echoed in its form, so the link is redeemed only
// by a POST from the page this browser was shown.
const EnrolCookie = "evs_enrol"

// maxLinkToken bounds a link token read from a request: longer is unknown
// without asking the portal.
const maxLinkToken = 512

// enrolPage shows a link's Continue button. A GET never uses the link:
// mail scanners and link previews open links, and must not spend them.
func (h *handler) enrolPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get(portal.LinkParam)
	if token == "" || len(token) > maxLinkToken {
		h.message(w, r, http.StatusNotFound, msgLinkUnknown)
		return
	}
	value := rand.Text()
	http.SetCookie(w, &http.Cookie{
		Name: EnrolCookie, Value: value, Path: basePath(r) + "/enrol", MaxAge: int(portal.LinkTTL.Seconds()),
		HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteStrictMode,
	})
	h.write(w, r, http.StatusOK, "enrol", h.view(r, "Enrol in the console", enrolForm{Token: token, Value: value}))
}

// enrolForm is the Continue form: the link's token and the page's value.
type enrolForm struct {
	Token, Value string
}

// enrolRedeem uses the link, from its page only, and starts an enrolment
// session: one that may register a passkey and nothing else.
func (h *handler) enrolRedeem(w http.ResponseWriter, r *http.Request) {
	c := &call{h: h, w: w, r: r, mode: modeForm, base: basePath(r), log: h.log(r).With("method", r.Method, "path", r.URL.Path)}
	if !c.sameOrigin() || !c.parseForm() {
		return
	}
	ck, err := r.Cookie(EnrolCookie)
	got := r.PostForm.Get("enrol")
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(got)) != 1 {
		c.log.Warn("enrolment without its page's value refused")
		c.message(http.StatusForbidden, msgEnrolExpired)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: EnrolCookie, Path: c.base + "/enrol", MaxAge: -1, HttpOnly: true, Secure: h.d.Secure(r), SameSite: http.SameSiteStrictMode})
	token := r.PostForm.Get(portal.LinkParam)
	if token == "" || len(token) > maxLinkToken {
		c.message(http.StatusNotFound, msgLinkUnknown)
		return
	}
	sessionToken, s, err := h.d.Portal.Redeem(r.Context(), token)
	switch {
	case errors.Is(err, portal.ErrLinkUnknown):
		c.log.Info("enrolment link refused", "reason", "unknown")
		c.message(http.StatusNotFound, msgLinkUnknown)
		return
	case errors.Is(err, portal.ErrLinkUsed):
		c.log.Info("enrolment link refused", "reason", "used")
		c.message(http.StatusGone, msgLinkUsed)
		return
	case errors.Is(err, portal.ErrLinkExpired):
		c.log.Info("enrolment link refused", "reason", "expired")
		c.message(http.StatusGone, msgLinkExpired)
		return
	case domain.ErrorCode(err) == domain.ECodeInvalid:
		c.log.Info("enrolment link refused", "reason", "operator disabled")
		c.message(http.StatusForbidden, msgOperatorDisabled)
		return
	case err != nil:
		c.log.Error("enrolment failed", "error", err.Error())
		c.message(http.StatusInternalServerError, msgInternal)
		return
	}
	if !s.Enrolment {
		// The portal marks every link's session so; anything else is a bug
		// that must not sign anyone in.
		c.log.Error("a link's session is not marked as an enrolment")
		h.d.Portal.End(r.Context(), sessionToken)
		c.message(http.StatusInternalServerError, msgInternal)
		return
	}
	h.startSession(c, sessionToken, s)
	c.log.Info("enrolment session started", "account_id", s.AccountID, "operator_id", s.Operator.ID)
	webpage.Redirect(w, c.base+"/enrol/passkey")
}

// enrolPasskey is the "Create your passkey" page. A full session has one
// already: it adds others on its passkeys page.
func (h *handler) enrolPasskey(c *call) {
	if isFull(c.s) {
		webpage.Redirect(c.w, c.base+"/passkeys")
		return
	}
	c.render(http.StatusOK, "enrol_passkey", "Create your passkey", "", ceremony{
		Kind: "register", Options: c.base + "/passkeys/options", Submit: c.base + "/passkeys", CSRF: csrfToken(c.token),
	})
}
