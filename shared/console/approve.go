package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/webpage"
	"github.com/evs-kyb/evs/shared/workflow"
)

// approvalOptions begins the second operator's signature over the same
// decision document the maker signed.
func (h *handler) approvalOptions(c *webpage.Call) {
	var in struct{}
	if !c.ReadJSON(&in) {
		return
	}
	p, ok := h.approvable(c)
	if !ok {
		return
	}
	options, err := h.d.Passkeys.BeginSigning(c.R.Context(), c.Session.Operator, passkey.PurposeApproval, p.Digest)
	if err != nil {
		c.Fail(err)
		return
	}
	c.WriteJSON(http.StatusOK, options)
}

// approve checks the second operator's signature and answers the
// workflow's approval task with it: the decision function checks it again
// and applies the decision.
func (h *handler) approve(c *webpage.Call) {
	var in struct {
		Response json.RawMessage `json:"response"`
	}
	if !c.ReadJSON(&in) {
		return
	}
	p, ok := h.approvable(c)
	if !ok {
		return
	}
	a, err := passkey.AssertionFromResponse(in.Response)
	if err != nil {
		c.Fail(err)
		return
	}
	ctx := c.R.Context()
	signed, err := h.d.Passkeys.CheckSigned(ctx, a, c.Session.AccountID, passkey.PurposeApproval, p.Digest)
	if err != nil {
		c.Fail(err)
		return
	}
	if signed.OperatorID != c.Session.Operator.ID {
		c.Fail(domain.Errorf(domain.ECodeSignatureRequired, "The approval was signed by another operator than you."))
		return
	}
	output, err := json.Marshal(decisions.Approval{Signature: &a})
	if err != nil {
		c.Fail(err)
		return
	}
	if err := h.d.Workflow.Approve(ctx, p.TaskToken, output); err != nil {
		c.Fail(taskRefusal(err))
		return
	}
	c.Log.Info("decision approved by a second operator")
	c.WriteJSON(http.StatusOK, next{Next: executionURL(c.Base, p.ActionID, "")})
}

// refuse fails the approval task with the second operator's reason, and
// takes the decision off the waiting list.
func (h *handler) refuse(c *webpage.Call) {
	p, ok := h.pending(c)
	if !ok {
		return
	}
	reason := strings.Join(strings.Fields(c.R.PostForm.Get("reason")), " ")
	if err := freetext.Check("reason", reason, freetext.Reason, true); err != nil {
		c.Fail(err)
		return
	}
	ctx := c.R.Context()
	cause := fmt.Sprintf("Refused by operator %d (%s): %s", c.Session.Operator.ID, c.Session.Operator.Name, reason)
	switch err := h.d.Workflow.Refuse(ctx, p.TaskToken, cause); {
	case errors.Is(err, workflow.ErrTaskGone):
		// Answered or ended meanwhile: nothing waits on it any more.
		c.Log.Info("refused approval task no longer waiting")
	case err != nil:
		c.Fail(err)
		return
	}
	if err := h.d.Store.DeletePendingApproval(ctx, c.Session.AccountID, p.ActionID); err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("decision refused by a second operator")
	// Answered: until Apply's transaction takes the waiting entry (a
	// moment), the page would still read "waiting"; it says "being
	// applied" and follows the run closely instead.
	webpage.Redirect(c.W, executionURL(c.Base, p.ActionID, "")+"?answered=1")
}

// taskRefusal names an approval task no longer waited on a conflict.
func taskRefusal(err error) error {
	if errors.Is(err, workflow.ErrTaskGone) {
		return domain.Errorf(domain.ECodeConflict, "This decision no longer waits for a second operator.")
	}
	return err
}
