package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/webpage"
	"github.com/evs-kyb/evs/shared/workflow"
)

// signing is what the confirmation page's script posts: the decision's
// fields, and (the second time) the passkey's answer.
type signing struct {
	Decision decision        `json:"decision"`
	Response json.RawMessage `json:"response,omitempty"`
}

// signOptions begins the operator's signature over the decision: the
// request is built from the posted fields and checked, and the ceremony
// bound to its digest. Nothing else is kept: the second post builds the
// same request from the same fields, and a signature over any other
// document does not verify.
func (h *handler) signOptions(c *webpage.Call) {
	_, req, ok := readSigning(c)
	if !ok {
		return
	}
	options, err := h.d.Passkeys.BeginSigning(c.R.Context(), c.Session.Operator, passkey.PurposeDecision, decisions.Digest(req))
	if err != nil {
		c.Fail(err)
		return
	}
	c.WriteJSON(http.StatusOK, options)
}

// sign takes the signed decision: the signature is checked here first (a
// bad one is told at once, and nothing starts), then the decision goes to
// the workflow, named by its action id, and the browser to its page.
func (h *handler) sign(c *webpage.Call) {
	in, req, ok := readSigning(c)
	if !ok {
		return
	}
	c.Log = c.Log.With("action_id", req.ActionID, "review_id", req.ReviewID, "action", string(req.Action))
	a, err := passkey.AssertionFromResponse(in.Response)
	if err != nil {
		c.Fail(err)
		return
	}
	req.Signature = &a
	ctx := c.R.Context()
	signed, err := h.d.Passkeys.CheckSigned(ctx, a, c.Session.AccountID, passkey.PurposeDecision, decisions.Digest(req))
	if err != nil {
		c.Fail(err)
		return
	}
	if signed.OperatorID != c.Session.Operator.ID {
		c.Fail(domain.Errorf(domain.ECodeSignatureRequired, "The decision was signed by another operator than you."))
		return
	}
	input, err := json.Marshal(req)
	if err != nil {
		c.Fail(err)
		return
	}
	switch _, err := h.d.Workflow.Start(ctx, req.ActionID, input); {
	case errors.Is(err, workflow.ErrExists):
		// Sent twice: the first one runs; its page says how it went.
		c.Log.Info("decision already started")
	case err != nil:
		c.Fail(err)
		return
	default:
		c.Log.Info("decision started")
	}
	c.WriteJSON(http.StatusOK, next{Next: executionURL(c.Base, req.ActionID, in.Decision.ViewedAt)})
}

// readSigning reads the script's post and builds the decision's request
// from its fields, checked; ok is false once a refusal is answered.
func readSigning(c *webpage.Call) (signing, decisions.Request, bool) {
	var in signing
	if !c.ReadJSON(&in) {
		return signing{}, decisions.Request{}, false
	}
	req, err := in.Decision.request(c.Session)
	if err != nil {
		c.Fail(err)
		return signing{}, decisions.Request{}, false
	}
	return in, req, true
}

// executionURL is an execution's page, with when its dossier was seen.
func executionURL(base, name, viewedAt string) string {
	u := base + "/executions/" + name
	if !parseSince(viewedAt).IsZero() {
		u += "?" + url.Values{"since": {viewedAt}}.Encode()
	}
	return u
}
