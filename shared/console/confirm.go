package console

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/etag"
	"github.com/evs-kyb/evs/shared/webpage"
)

// confirmPage shows a decision in words before it is signed: what, on
// which review and entity, why, and on which revision of the dossier.
type confirmPage struct {
	Decision decision
	Review   domain.Review
	Entity   domain.Entity
	Fields   []fieldValue
	Sign     ceremony
	// FourEyes: once signed, the decision waits for a second operator.
	FourEyes bool
}

// fieldValue is an action's own field in words.
type fieldValue struct {
	Label, Value string
}

// confirm reads a review page's decision form and shows it to be signed.
// Nothing is begun here: the page's script asks for the signing ceremony.
func (h *handler) confirm(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	d, err := decisionOf(c.R.PostForm, id, c.ActionID)
	if err != nil {
		c.Fail(err)
		return
	}
	req, err := d.request(c.Session)
	if err != nil {
		c.Fail(err)
		return
	}
	ctx := c.R.Context()
	r, err := h.d.Store.Review(ctx, c.Session.AccountID, req.ReviewID)
	if err != nil {
		c.Fail(err)
		return
	}
	// The dossier as it stands: its entity for the seen check, its checks
	// for the policy.
	dossier, err := h.loadDossier(ctx, c.Session.AccountID, r.EntityID)
	if err != nil {
		c.Fail(err)
		return
	}
	e := dossier.Entity
	// The entity shown is the one the document names, and signs.
	d.EntityID = itoa(e.ID)
	if req.Seen != "" && !etag.Same(req.Seen, dossierTag(e)) {
		// Signing it would only be refused: say so now.
		h.showStale(c, r.ID, r.EntityID, req.Seen, parseSince(d.ViewedAt))
		return
	}
	// What the policy blocks is never offered to sign; what needs a second
	// operator says so before the maker signs.
	acct, err := h.d.Store.Account(ctx, c.Session.AccountID)
	if err != nil {
		c.Fail(err)
		return
	}
	forms := []actionForm{{Action: req.Action}}
	if _, err := h.policyOn(ctx, acct, dossier, forms); err != nil {
		c.Fail(err)
		return
	}
	if bs := forms[0].Blockers; len(bs) > 0 {
		c.MessageWith(http.StatusUnprocessableEntity, msgBlocked(), decisions.Blockers(bs)+".")
		return
	}
	page := confirmPage{Decision: d, Review: r, Entity: e, Fields: fieldsOf(d), FourEyes: decisions.FourEyes(acct, e, req),
		Sign: ceremony{Kind: "sign", Options: c.Base + "/sign/options", Submit: c.Base + "/sign", CSRF: c.CSRF()}}
	c.Render(http.StatusOK, "confirm", "Sign your decision", "queue", page)
}

// fieldsOf lists a decision's own fields that are set.
func fieldsOf(d decision) []fieldValue {
	var out []fieldValue
	for _, f := range []fieldValue{
		{"Assignee (operator id)", d.AssigneeID}, {"Risk level", d.RiskLevel}, {"Match", d.MatchID}, {"Verdict", label(d.Verdict)},
		{"Website", d.WebsiteURL}, {"Social", d.SocialURL}, {"Business activity", d.Summary},
		{"Party: what is done", d.PartyOp}, {"Party (id)", d.PartyID}, {"Party kind", d.PartyKind}, {"Party name", d.PartyName},
		{"Party roles", d.PartyRoles}, {"Party shares (count)", d.PartyShares}, {"Party identity type", d.PartyIDType},
		{"Party identity number", d.PartyIDNumber}, {"Party nationality", d.PartyNationality}, {"Party birth date", d.PartyBirthDate},
		{"Party source", d.PartySource}, {"Party controls by other means", d.PartyControls},
	} {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}
