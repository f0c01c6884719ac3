package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
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
func (h *handler) signOptions(c *call) {
	var in signing
	if !c.readJSON(&in) {
		return
	}
	req, err := in.Decision.request(c.s)
	if err != nil {
		c.fail(err)
		return
	}
	options, err := h.d.Passkeys.BeginSigning(c.r.Context(), c.s.Operator, passkey.PurposeDecision, decisions.Digest(req))
	if err != nil {
		c.fail(err)
		return
	}
	writeJSON(c.w, http.StatusOK, options)
}

// sign takes the signed decision: the signature is checked here first (a
// bad one is told at once, and nothing starts), then the decision goes to
// the workflow, named by its action id, and the browser to its page.
func (h *handler) sign(c *call) {
	var in signing
	if !c.readJSON(&in) {
		return
	}
	req, err := in.Decision.request(c.s)
	if err != nil {
		c.fail(err)
		return
	}
	c.log = c.log.With("action_id", req.ActionID, "review_id", req.ReviewID, "action", string(req.Action))
	a, err := passkey.AssertionFromResponse(in.Response)
	if err != nil {
		c.fail(err)
		return
	}
	req.Signature = &a
	ctx := c.r.Context()
	signed, err := h.d.Passkeys.CheckSigned(ctx, a, c.s.AccountID, passkey.PurposeDecision, decisions.Digest(req))
	if err != nil {
		c.fail(err)
		return
	}
	if signed.OperatorID != c.s.Operator.ID {
		c.fail(domain.Errorf(domain.ECodeSignatureRequired, "The decision was signed by another operator than you."))
		return
	}
	input, err := json.Marshal(req)
	if err != nil {
		c.fail(err)
		return
	}
	switch _, err := h.d.Workflow.Start(ctx, req.ActionID, input); {
	case errors.Is(err, workflow.ErrExists):
		// Sent twice: the first one runs; its page says how it went.
		c.log.Info("decision already started")
	case err != nil:
		c.fail(err)
		return
	default:
		c.log.Info("decision started")
	}
	writeJSON(c.w, http.StatusOK, next{Next: executionURL(c.base, req.ActionID, in.Decision.ViewedAt)})
}

// executionURL is an execution's page, with when its dossier was seen.
func executionURL(base, name, viewedAt string) string {
	u := base + "/executions/" + name
	if !parseSince(viewedAt).IsZero() {
		u += "?" + url.Values{"since": {viewedAt}}.Encode()
	}
	return u
}
