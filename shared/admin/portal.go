package admin

import (
	"context"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
)

// Enrolment links: the administrator mints one for an operator and hands
// it over; it opens the console's enrolment page, where the operator
// presses Continue (once, within 15 minutes) and registers a passkey. A
// new link is also how an operator who lost every passkey gets back in. The link
// holds a secret token: it is in the answer alone, never in a log or a
// table (the table keeps its SHA-256).

type portalFields struct {
	common
	AccountID  int64 `json:"account_id" strict:"id"`
	OperatorID int64 `json:"operator_id" strict:"id"`
}

// PortalLinkView is portal.link's answer: the link to the console's
// enrolment page; it works once.
type PortalLinkView struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
}

func (h *Handler) portalLink(ctx context.Context, c *call) (any, error) {
	var p portalFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	if p.OperatorID <= 0 {
		return nil, domain.Invalid("operator_id", "is required: the operator who signs in")
	}
	// Checked before minting, so a stage without the setting mints nothing
	// it cannot hand over.
	if err := portal.CheckBaseURL(h.SettingsURL); err != nil {
		return nil, err
	}
	l, err := h.portal().Mint(ctx, c.actor(p.AccountID, 0), p.OperatorID)
	if err != nil {
		return nil, notFoundIn(err, p.AccountID, "operator", p.OperatorID)
	}
	u, err := portal.LinkURL(h.SettingsURL, l.Token)
	if err != nil {
		return nil, err
	}
	return PortalLinkView{URL: u, ExpiresAt: domain.FormatTime(l.ExpiresAt)}, nil
}

func (h *Handler) portal() *portal.Service {
	return &portal.Service{Store: h.Store, Clock: h.Clock}
}
