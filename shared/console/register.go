package console

import (
	"encoding/json"
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// An enrolment session (an enrolment link's) registers a passkey with no
// more ado: holding the link is its proof. A full session adds one only
// after a step-up, a fresh assertion by one of the operator's passkeys:
// its cookie and its page's CSRF token alone do not prove the person is
// there, and a passkey added on a stolen cookie would sign decisions and
// outlive the session. The step-up is bound to the one registration it
// begins (passkey.Service.BeginAddition), so a full session has no
// registration to finish without one.

// stepUpOptions begins a full session's step-up before adding a passkey.
func (h *handler) stepUpOptions(c *webpage.Call) {
	var in struct{}
	if !c.ReadJSON(&in) {
		return
	}
	options, err := h.d.Passkeys.BeginStepUp(c.R.Context(), c.Session.Operator)
	if err != nil {
		c.Fail(err)
		return
	}
	c.WriteJSON(http.StatusOK, options)
}

// registrationOptions is what the script posts for a registration's
// options: nothing from an enrolment session; the step-up, the browser's
// credential.toJSON() of stepUpOptions' ceremony, from a full session.
type registrationOptions struct {
	Response json.RawMessage `json:"response,omitempty"`
}

// registerOptions begins registering a passkey for the signed-in operator:
// an enrolment session's first, or a full session's further one after its
// step-up.
func (h *handler) registerOptions(c *webpage.Call) {
	var in registrationOptions
	if !c.ReadJSON(&in) {
		return
	}
	ctx, op := c.R.Context(), c.Session.Operator
	var options json.RawMessage
	var err error
	switch full, stepUp := webpage.IsFull(c.Session), given(in.Response); {
	case !full && stepUp:
		err = domain.Errorf(domain.ECodeBadRequest, "An enrolment registers its passkey without a confirmation.")
	case !full:
		options, err = h.d.Passkeys.BeginRegistration(ctx, op)
	case !stepUp:
		err = domain.Errorf(domain.ECodeSignatureRequired, "Adding a passkey takes a fresh confirmation with one you have: confirm with your passkey first.")
	default:
		options, err = h.d.Passkeys.BeginAddition(ctx, op, in.Response)
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.WriteJSON(http.StatusOK, options)
}

// given reports whether a JSON value was given (not absent, not null).
func given(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// registration is the script's registration: the passkey's name and the
// browser's credential.toJSON().
type registration struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// register finishes the registration. An enrolment session has done its
// one thing: it ends, and a full session starts on the new passkey, so the
// operator goes straight to the queue; a full session just gains a passkey,
// and only by the registration its step-up began.
func (h *handler) register(c *webpage.Call) {
	var in registration
	if !c.ReadJSON(&in) {
		return
	}
	c.ActionID = webpage.NewActionID()
	finish := h.d.Passkeys.FinishRegistration
	if webpage.IsFull(c.Session) {
		finish = h.d.Passkeys.FinishAddition
	}
	p, err := finish(c.R.Context(), c.Actor(), c.Session.Operator, in.Name, in.Response)
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
