package console

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"

	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/webpage"
)

// LoginCookie names the sign-in ceremony's cookie: the challenge the
// browser was given, so the ceremony is finished only by the browser that
// began it (an attacker's own assertion cannot sign a victim in as them).
const LoginCookie = "evs_login"

// loginOptions begins a discoverable sign-in.
func (h *handler) loginOptions(c *webpage.Call) {
	var in struct{}
	if !c.ReadJSON(&in) {
		return
	}
	options, err := h.d.Passkeys.BeginLogin(c.R.Context())
	if err != nil {
		c.Fail(err)
		return
	}
	var o struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(options, &o); err != nil || o.Challenge == "" {
		c.Log.Error("sign-in options carry no challenge")
		c.Message(http.StatusInternalServerError, webpage.MsgInternal())
		return
	}
	http.SetCookie(c.W, h.loginCookie(c, o.Challenge, int(passkey.CeremonyTTL.Seconds())))
	c.WriteJSON(http.StatusOK, options)
}

// login finishes the sign-in: the passkey verified, a full session starts
// on it.
func (h *handler) login(c *webpage.Call) {
	var in struct {
		Response json.RawMessage `json:"response"`
	}
	if !c.ReadJSON(&in) {
		return
	}
	ck, err := c.R.Cookie(LoginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(passkey.ClientChallenge(in.Response))) != 1 {
		c.Log.Warn("sign-in not begun by this browser refused")
		c.Message(http.StatusForbidden, webpage.MsgCSRF())
		return
	}
	http.SetCookie(c.W, h.loginCookie(c, "", -1))
	login, err := h.d.Passkeys.FinishLogin(c.R.Context(), in.Response)
	if err != nil {
		c.Fail(err)
		return
	}
	token, s, err := h.d.Portal.StartSession(c.R.Context(), login.Operator.AccountID, login.Operator.ID, login.Passkey.ID)
	if err != nil {
		c.Fail(err)
		return
	}
	c.StartSession(token, s)
	c.Log.Info("signed in with a passkey", "account_id", s.AccountID, "operator_id", s.Operator.ID)
	c.WriteJSON(http.StatusOK, next{Next: c.Base + "/queue"})
}

func (h *handler) loginCookie(c *webpage.Call, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: LoginCookie, Value: value, Path: c.Base + "/login", MaxAge: maxAge,
		HttpOnly: true, Secure: h.area.Secure(c.R), SameSite: http.SameSiteStrictMode}
}
