package console

import (
	"context"
	"slices"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
)

// beforeYouDecide is the review page's first section: what the decision
// policy finds in an approval's way, and which of the operator's decisions
// would wait for a second operator, so both are known before anyone signs.
type beforeYouDecide struct {
	// Blockers are the policy's for approving: open and confirmed
	// matches, an unassessed risk, required checks not completed.
	Blockers []decisions.Blocker
	// FourEyes are the actions offered that need a second operator.
	FourEyes []domain.Action
}

// Clear reports whether nothing stands in an approval's way.
func (b beforeYouDecide) Clear() bool { return len(b.Blockers) == 0 }

// policyOn gives each form what the policy and the account's four-eyes
// settings say of it, and sums them up for the page's first section. The
// decision service checks the same again when the decision is made.
func (h *handler) policyOn(ctx context.Context, acct domain.Account, d shownDossier, forms []actionForm) (beforeYouDecide, error) {
	cfg, err := h.countryConfig(ctx, d.Entity)
	if err != nil {
		return beforeYouDecide{}, err
	}
	checks := slices.Clone(d.Checks)
	slices.SortFunc(checks, newestFirst) // as the decision service reads them
	b := beforeYouDecide{Blockers: decisions.ApproveBlockers(d.Entity, checks, cfg)}
	for i := range forms {
		f := &forms[i]
		if f.Action == domain.ActionApprove {
			f.Blockers = b.Blockers
		}
		if f.FourEyes = decisions.FourEyes(acct, d.Entity, decisions.Request{Action: f.Action}); f.FourEyes {
			b.FourEyes = append(b.FourEyes, f.Action)
		}
	}
	return b, nil
}

// countryConfig is the entity's country's configuration, or the default
// one for a country no longer configured (as the decision service holds
// it).
func (h *handler) countryConfig(ctx context.Context, e domain.Entity) (domain.CountryConfig, error) {
	cfg, err := h.d.Store.CountryConfig(ctx, e.AccountID, e.CountryCode)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.DefaultCountryConfig(e.AccountID, e.CountryCode, e.CountryID, h.d.Clock.Now()), nil
	}
	return cfg, err
}
