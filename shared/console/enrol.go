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

// enrolPage shows a link's Continue button. A GET never uses the link:
// mail scanners and link previews open links, and must not spend them.
func (h *handler) enrolPage(c *webpage.Call) {
	token, ok := portal.LinkToken(c.R.URL.Query())
	if !ok {
		c.Message(http.StatusNotFound, msgLinkUnknown())
		return
	}
	value := rand.Text()
	http.SetCookie(c.W, h.enrolCookie(c, value, int(portal.LinkTTL.Seconds())))
	c.RenderOpen(http.StatusOK, "enrol", "Enrol in the console", enrolForm{Token: token, Value: value})
}

// enrolCookie carries the enrolment page's value to its form's POST only.
func (h *handler) enrolCookie(c *webpage.Call, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: EnrolCookie, Value: value, Path: c.Base + "/enrol", MaxAge: maxAge,
		HttpOnly: true, Secure: h.area.Secure(c.R), SameSite: http.SameSiteStrictMode,
	}
}

// enrolForm is the Continue form: the link's token and the page's value.
type enrolForm struct {
	Token, Value string
}

// enrolRedeem uses the link, from its page only, and starts an enrolment
// session: one that may register a passkey and nothing else.
func (h *handler) enrolRedeem(c *webpage.Call) {
	w, r := c.W, c.R
	ck, err := r.Cookie(EnrolCookie)
	got := r.PostForm.Get("enrol")
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(got)) != 1 {
		c.Log.Warn("enrolment without its page's value refused")
		c.Message(http.StatusForbidden, msgEnrolExpired())
		return
	}
	http.SetCookie(w, h.enrolCookie(c, "", -1))
	token, ok := portal.LinkToken(r.PostForm)
	if !ok {
		c.Message(http.StatusNotFound, msgLinkUnknown())
		return
	}
	sessionToken, s, err := h.d.Portal.Redeem(r.Context(), token)
	switch {
	case errors.Is(err, portal.ErrLinkUnknown):
		c.Log.Info("enrolment link refused", "reason", "unknown")
		c.Message(http.StatusNotFound, msgLinkUnknown())
		return
	case errors.Is(err, portal.ErrLinkUsed):
		c.Log.Info("enrolment link refused", "reason", "used")
		c.Message(http.StatusGone, msgLinkUsed())
		return
	case errors.Is(err, portal.ErrLinkExpired):
		c.Log.Info("enrolment link refused", "reason", "expired")
		c.Message(http.StatusGone, msgLinkExpired())
		return
	case domain.ErrorCode(err) == domain.ECodeInvalid:
		c.Log.Info("enrolment link refused", "reason", "operator disabled")
		c.Message(http.StatusForbidden, msgOperatorDisabled())
		return
	case err != nil:
		c.Log.Error("enrolment failed", "error", err.Error())
		c.Message(http.StatusInternalServerError, webpage.MsgInternal())
		return
	}
	if !s.Enrolment {
		// The portal marks every link's session so; anything else is a bug
		// that must not sign webpage.Anyone in.
		c.Log.Error("a link's session is not marked as an enrolment")
		h.d.Portal.End(r.Context(), sessionToken)
		c.Message(http.StatusInternalServerError, webpage.MsgInternal())
		return
	}
	c.StartSession(sessionToken, s)
	c.Log.Info("enrolment session started", "account_id", s.AccountID, "operator_id", s.Operator.ID)
	webpage.Redirect(w, c.Base+"/enrol/passkey")
}

// enrolPasskey is the "Create your passkey" page. A full session has one
// already: it adds others on its passkeys page.
func (h *handler) enrolPasskey(c *webpage.Call) {
	if webpage.IsFull(c.Session) {
		webpage.Redirect(c.W, c.Base+"/passkeys")
		return
	}
	c.Render(http.StatusOK, "enrol_passkey", "Create your passkey", "", ceremony{
		Kind: "register", Options: c.Base + "/passkeys/options", Submit: c.Base + "/passkeys", CSRF: c.CSRF(),
	})
}
