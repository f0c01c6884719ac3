package console

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
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
func (h *handler) executionPage(c *call) {
	name := c.r.PathValue("name")
	if !validActionID(name) {
		c.message(http.StatusNotFound, msgNotFound)
		return
	}
	ctx := c.r.Context()
	x, err := h.d.Workflow.Describe(ctx, h.d.Workflow.ExecutionARN(name))
	if errors.Is(err, workflow.ErrNotFound) {
		c.message(http.StatusNotFound, msgNotFound)
		return
	}
	if err != nil {
		c.fail(err)
		return
	}
	page := executionPage{Name: name, Status: x.Status}
	if err := json.Unmarshal(x.Input, &page.Request); err != nil || page.Request.AccountID != c.s.AccountID {
		c.message(http.StatusNotFound, msgNotFound)
		return
	}
	switch x.Status {
	case workflow.StatusRunning:
		_, err := h.d.Store.PendingApproval(ctx, c.s.AccountID, name)
		switch domain.ErrorCode(err) {
		case "":
			// Just answered by this operator: being applied, not waiting.
			page.Waiting = c.r.URL.Query().Get("answered") != "1"
		case domain.ECodeNotFound:
		default:
			c.fail(err)
			return
		}
		seconds := refreshRunning
		if page.Waiting {
			seconds = refreshWaiting
		}
		c.refreshing(seconds, "execution", executionTitle(x.Status, page.Waiting), "queue", page)
		return
	case workflow.StatusSucceeded:
		var out decisions.ReviewOut
		if json.Unmarshal(x.Output, &out) == nil && out.ID != 0 {
			page.Review = &out
		}
	case workflow.StatusFailed:
		page.Error, page.Cause = x.Error, x.Cause
		if x.Error == domain.FailStaleView {
			r, err := h.d.Store.Review(ctx, c.s.AccountID, page.Request.ReviewID)
			if err != nil {
				c.fail(err)
				return
			}
			v, err := h.staleViewOf(c, r.ID, r.EntityID, page.Request.Seen, parseSince(c.r.URL.Query().Get("since")))
			if err != nil {
				c.fail(err)
				return
			}
			page.Stale = &v
		}
	}
	c.render(http.StatusOK, "execution", executionTitle(x.Status, false), "queue", page)
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
