package console

import (
	"encoding/json"
	"net/http"

	"github.com/evs-kyb/evs/shared/webpage"
)

// registerOptions begins registering a passkey for the signed-in operator
// (an enrolment session's one purpose).
func (h *handler) registerOptions(c *webpage.Call) {
	var in struct{}
	if !c.ReadJSON(&in) {
		return
	}
	options, err := h.d.Passkeys.BeginRegistration(c.R.Context(), c.Session.Operator)
	if err != nil {
		c.Fail(err)
		return
	}
	c.WriteJSON(http.StatusOK, options)
}

// registration is the script's registration: the passkey's name and the
// browser's credential.toJSON().
type registration struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// register finishes the registration. An enrolment session has done its
// one thing: it ends, and a full session starts on the new passkey, so the
// operator goes straight to the queue; a full session just gains a passkey.
func (h *handler) register(c *webpage.Call) {
	var in registration
	if !c.ReadJSON(&in) {
		return
	}
	c.ActionID = webpage.NewActionID()
	p, err := h.d.Passkeys.FinishRegistration(c.R.Context(), c.Actor(), c.Session.Operator, in.Name, in.Response)
	if err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("passkey registered", "action_id", c.ActionID)
	if webpage.IsFull(c.Session) {
		c.WriteJSON(http.StatusOK, next{Next: c.Base + "/passkeys"})
		return
	}
	token, s, err := h.d.Portal.StartSession(c.R.Context(), c.Session.AccountID, c.Session.Operator.ID, p.ID)
	if err != nil {
		c.Fail(err)
		return
	}
	c.StartSession(token, s) // ends the enrolment session
	c.Log.Info("signed in with the new passkey")
	c.WriteJSON(http.StatusOK, next{Next: c.Base + "/queue"})
}
