package console

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/webpage"
	"github.com/evs-kyb/evs/shared/workflow"
)

// How often a running execution's page reloads itself: soon while the
// decision is being applied, seldom while it waits for a person.
const (
	refreshRunning = 2
	refreshWaiting = 15
)

// executionPage is a decision's run as the operator follows it.
type executionPage struct {
	Name    string
	Status  string
	Request decisions.Request
	// Waiting: it waits for a second operator.
	Waiting bool
	// Review is the review as decided (succeeded).
	Review *decisions.ReviewOut
	// Error and Cause say why it failed; Stale is the view of a dossier
	// that moved (StaleView).
	Error, Cause string
	Stale        *staleView
}

// executionPage shows a decision's execution to the operators of its
// account; any other account's, like none, is not found.
func (h *handler) executionPage(c *webpage.Call) {
	name := c.R.PathValue("name")
	if !webpage.ValidActionID(name) {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	ctx := c.R.Context()
	x, err := h.d.Workflow.Describe(ctx, h.d.Workflow.ExecutionARN(name))
	if errors.Is(err, workflow.ErrNotFound) {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	if err != nil {
		c.Fail(err)
		return
	}
	page := executionPage{Name: name, Status: x.Status}
	// Read as the decision function reads it: an input it would refuse
	// (a key twice, in another case, unknown) names no account for sure.
	page.Request, err = decisions.ReadRequest(x.Input)
	if err != nil {
		c.Log.Info("execution input unreadable", "reason", logging.Bounded(domain.Refusal(err)))
	}
	if err != nil || page.Request.AccountID != c.Session.AccountID {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	switch x.Status {
	case workflow.StatusRunning:
		_, err := h.d.Store.PendingApproval(ctx, c.Session.AccountID, name)
		switch domain.ErrorCode(err) {
		case "":
			// Just answered by this operator: being applied, not waiting.
			page.Waiting = c.R.URL.Query().Get("answered") != "1"
		case domain.ECodeNotFound:
		default:
			c.Fail(err)
			return
		}
		seconds := refreshRunning
		if page.Waiting {
			seconds = refreshWaiting
		}
		c.Refreshing(seconds, "execution", executionTitle(x.Status, page.Waiting), "queue", page)
		return
	case workflow.StatusSucceeded:
		var out decisions.ReviewOut
		if json.Unmarshal(x.Output, &out) == nil && out.ID != 0 {
			page.Review = &out
		}
	case workflow.StatusFailed:
		page.Error, page.Cause = x.Error, x.Cause
		if x.Error == domain.FailStaleView {
			r, err := h.d.Store.Review(ctx, c.Session.AccountID, page.Request.ReviewID)
			if err != nil {
				c.Fail(err)
				return
			}
			v, err := h.staleViewOf(c, r.ID, r.EntityID, page.Request.Seen, parseSince(c.R.URL.Query().Get("since")))
			if err != nil {
				c.Fail(err)
				return
			}
			page.Stale = &v
		}
	}
	c.Render(http.StatusOK, "execution", executionTitle(x.Status, false), "queue", page)
}

// executionTitle is an execution's status in words.
func executionTitle(status string, waiting bool) string {
	switch {
	case waiting:
		return "Waiting for a second operator"
	case status == workflow.StatusRunning:
		return "Decision being applied"
	case status == workflow.StatusSucceeded:
		return "Decision applied"
	case status == workflow.StatusTimedOut:
		return "Decision timed out"
	case status == workflow.StatusAborted:
		return "Decision stopped"
	}
	return "Decision not applied"
}
