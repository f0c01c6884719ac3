package console

import (
	"encoding/json"
	"net/http"
)

// registerOptions begins registering a passkey for the signed-in operator
// (an enrolment session's one purpose).
func (h *handler) registerOptions(c *call) {
	var in struct{}
	if !c.readJSON(&in) {
		return
	}
	options, err := h.d.Passkeys.BeginRegistration(c.r.Context(), c.s.Operator)
	if err != nil {
		c.fail(err)
		return
	}
	writeJSON(c.w, http.StatusOK, options)
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
func (h *handler) register(c *call) {
	var in registration
	if !c.readJSON(&in) {
		return
	}
	c.actionID = newActionID()
	p, err := h.d.Passkeys.FinishRegistration(c.r.Context(), c.actor(), c.s.Operator, in.Name, in.Response)
	if err != nil {
		c.fail(err)
		return
	}
	c.log.Info("passkey registered", "action_id", c.actionID)
	if isFull(c.s) {
		writeJSON(c.w, http.StatusOK, next{Next: c.base + "/passkeys"})
		return
	}
	token, s, err := h.d.Portal.StartSession(c.r.Context(), c.s.AccountID, c.s.Operator.ID, p.ID)
	if err != nil {
		c.fail(err)
		return
	}
	h.startSession(c, token, s) // ends the enrolment session
	c.log.Info("signed in with the new passkey")
	writeJSON(c.w, http.StatusOK, next{Next: c.base + "/queue"})
}
