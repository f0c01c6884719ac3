package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/etag"
	"github.com/evs-kyb/evs/shared/webpage"
)

// approvalPage is a four-eyes decision shown to a possible second
// operator: the maker's decision as signed, and the dossier as it is now.
type approvalPage struct {
	Pending  domain.PendingApproval
	Document string // the decision document, indented
	Dossier  shownDossier
	// Stale: the dossier moved since the maker saw it; it cannot be
	// approved, only refused.
	Stale   *staleView
	Approve ceremony
}

// pending is the decision waiting under the path's action id, if the
// signed-in operator may answer it: not its maker, and holding the
// permission its action needs. A refusal is answered.
func (h *handler) pending(c *webpage.Call) (domain.PendingApproval, bool) {
	id := c.R.PathValue("id")
	if id == "" || len(id) > 200 {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return domain.PendingApproval{}, false
	}
	p, err := h.d.Store.PendingApproval(c.R.Context(), c.Session.AccountID, id)
	if err != nil {
		c.Fail(err)
		return domain.PendingApproval{}, false
	}
	c.Log = c.Log.With("action_id", p.ActionID, "review_id", p.ReviewID)
	if p.MakerID == c.Session.Operator.ID {
		c.Log.Info("maker refused as their own second operator")
		c.Message(http.StatusForbidden, msgMaker())
		return domain.PendingApproval{}, false
	}
	rule, ok := decisions.RuleOf(p.Action)
	if !ok {
		c.Fail(fmt.Errorf("pending approval %s names no action (%q)", p.ActionID, p.Action))
		return domain.PendingApproval{}, false
	}
	if !c.Session.Can(rule.Permission) {
		c.Forbidden(webpage.Need{rule.Permission})
		return domain.PendingApproval{}, false
	}
	return p, true
}

// staleSince is the stale view when the dossier moved since the maker saw it.
func (h *handler) staleSince(c *webpage.Call, p domain.PendingApproval, d shownDossier) (*staleView, error) {
	if p.Seen == "" || etag.Same(p.Seen, d.ETag) {
		return nil, nil
	}
	v, err := h.staleViewOf(c, p.ReviewID, p.EntityID, p.Seen, p.CreatedAt)
	return &v, err
}

func (h *handler) approvalPage(c *webpage.Call) {
	p, ok := h.pending(c)
	if !ok {
		return
	}
	d, err := h.loadDossier(c.R.Context(), c.Session.AccountID, p.EntityID)
	if err != nil {
		c.Fail(err)
		return
	}
	page := approvalPage{Pending: p, Document: indented(p.Document), Dossier: d,
		Approve: ceremony{Kind: "approve", Options: c.Base + "/approvals/" + p.ActionID + "/options",
			Submit: c.Base + "/approvals/" + p.ActionID + "/approve", CSRF: c.CSRF()}}
	if page.Stale, err = h.staleSince(c, p, d); err != nil {
		c.Fail(err)
		return
	}
	c.Render(http.StatusOK, "approval", "Second approval: "+actionLabel(p.Action), "queue", page)
}

// approvable is the pending decision if its dossier is still the one the
// maker saw; a stale one is refused (StaleView), as Apply would.
func (h *handler) approvable(c *webpage.Call) (domain.PendingApproval, bool) {
	p, ok := h.pending(c)
	if !ok {
		return p, false
	}
	e, err := h.d.Store.Entity(c.R.Context(), c.Session.AccountID, p.EntityID)
	if err != nil {
		c.Fail(err)
		return p, false
	}
	if p.Seen != "" && !etag.Same(p.Seen, dossierTag(e)) {
		c.Fail(domain.Errorf(domain.ECodeStaleView, "The dossier changed since the decision was made: it can no longer be approved, only refused."))
		return p, false
	}
	return p, true
}

// indented is a JSON document indented for reading (as it is, when it is
// not JSON).
func indented(doc string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(doc), "", "  ") != nil {
		return doc
	}
	return b.String()
}
