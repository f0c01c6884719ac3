package console

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"

	"github.com/evs-kyb/evs/shared/passkey"
)

// LoginCookie names the sign-in ceremony's cookie: the challenge the
// browser was given, so the ceremony is finished only by the browser that
// began it (an attacker's own assertion cannot sign a victim in as them).
const LoginCookie = "evs_login"

// loginOptions begins a discoverable sign-in.
func (h *handler) loginOptions(c *call) {
	var in struct{}
	if !c.readJSON(&in) {
		return
	}
	options, err := h.d.Passkeys.BeginLogin(c.r.Context())
	if err != nil {
		c.fail(err)
		return
	}
	var o struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(options, &o); err != nil || o.Challenge == "" {
		c.log.Error("sign-in options carry no challenge")
		c.message(http.StatusInternalServerError, msgInternal)
		return
	}
	http.SetCookie(c.w, h.loginCookie(c, o.Challenge, int(passkey.CeremonyTTL.Seconds())))
	writeJSON(c.w, http.StatusOK, options)
}

// login finishes the sign-in: the passkey verified, a full session starts
// on it.
func (h *handler) login(c *call) {
	var in struct {
		Response json.RawMessage `json:"response"`
	}
	if !c.readJSON(&in) {
		return
	}
	ck, err := c.r.Cookie(LoginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(passkey.ClientChallenge(in.Response))) != 1 {
		c.log.Warn("sign-in not begun by this browser refused")
		c.message(http.StatusForbidden, msgCSRF)
		return
	}
	http.SetCookie(c.w, h.loginCookie(c, "", -1))
	login, err := h.d.Passkeys.FinishLogin(c.r.Context(), in.Response)
	if err != nil {
		c.fail(err)
		return
	}
	token, s, err := h.d.Portal.StartSession(c.r.Context(), login.Operator.AccountID, login.Operator.ID, login.Passkey.ID)
	if err != nil {
		c.fail(err)
		return
	}
	h.startSession(c, token, s)
	c.log.Info("signed in with a passkey", "account_id", s.AccountID, "operator_id", s.Operator.ID)
	writeJSON(c.w, http.StatusOK, next{Next: c.base + "/queue"})
}

func (h *handler) loginCookie(c *call, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: LoginCookie, Value: value, Path: c.base + "/login", MaxAge: maxAge,
		HttpOnly: true, Secure: h.d.Secure(c.r), SameSite: http.SameSiteStrictMode}
}
