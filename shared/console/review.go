package console

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/webpage"
)

// reviewPage is a review with its entity's dossier and the decisions the
// operator may take on it.
type reviewPage struct {
	Review  domain.Review
	Dossier shownDossier
	// ViewedAt is when this page was rendered: a stale decision lists what
	// changed since.
	ViewedAt  string
	Checks    []checkRow
	Screening *checkRow // the check the matches are from
	// Screened are the names the screening sent, with where each came
	// from; Partial says why the register's were not among them.
	Screened []screenedName
	Partial  string
	Matches  []matchRow
	// Parties is who is behind the business.
	Parties dossier.People
	// MatchNote says why the matches are not set beside the entity field
	// by field, when they are not.
	MatchNote string
	Others    []domain.Review // the entity's other reviews
	Audit     []auditRow
	Forms     []actionForm
	// Before is the page's first section: the policy's blockers and the
	// decisions that need a second operator.
	Before  beforeYouDecide
	Pending []domain.PendingApproval // this review's decisions awaiting a second operator
	// Decides: the operator holds some decision permission (a view-only
	// operator is told why no form shows).
	Decides bool
}

func (h *handler) reviewPage(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	ctx := c.R.Context()
	r, err := h.d.Store.Review(ctx, c.Session.AccountID, id)
	if err != nil {
		c.Fail(err)
		return
	}
	d, err := h.loadDossier(ctx, c.Session.AccountID, r.EntityID)
	if err != nil {
		c.Fail(err)
		return
	}
	// The review as the dossier read it: the same revision as the tag.
	if i := slices.IndexFunc(d.Reviews, func(x domain.Review) bool { return x.ID == r.ID }); i >= 0 {
		r = d.Reviews[i]
	}
	trail, err := h.d.Store.AuditTrail(ctx, c.Session.AccountID, r.EntityID)
	if err != nil {
		c.Fail(err)
		return
	}
	audit, err := h.auditRows(ctx, c.Session.AccountID, trail)
	if err != nil {
		c.Fail(err)
		return
	}
	page := reviewPage{Review: r, Dossier: d, ViewedAt: h.d.Clock.Now().Format(time.RFC3339Nano), Checks: checkRows(d.Checks), Audit: audit,
		Decides: decides(c)}
	for _, o := range d.Reviews {
		if o.ID != r.ID {
			page.Others = append(page.Others, o)
		}
	}
	var operators []domain.Operator
	if _, ok := formFor(c.Session, domain.ActionAssign, r); ok {
		if operators, err = h.d.Store.Operators(ctx, c.Session.AccountID); err != nil {
			c.Fail(err)
			return
		}
	}
	page.Forms = reviewForms(c.Session, d, r, operators)
	acct, err := h.d.Store.Account(ctx, c.Session.AccountID)
	if err != nil {
		c.Fail(err)
		return
	}
	if page.Before, err = h.policyOn(ctx, acct, d, page.Forms); err != nil {
		c.Fail(err)
		return
	}
	page.Parties = dossier.PeopleOf(d.Entity, d.Checks)
	if err := h.screeningSection(c, d, r, &page); err != nil {
		c.Fail(err)
		return
	}
	pending, err := h.d.Store.PendingApprovals(ctx, c.Session.AccountID, h.d.Clock.Now())
	if err != nil {
		c.Fail(err)
		return
	}
	for _, p := range pending {
		if p.ReviewID == r.ID {
			page.Pending = append(page.Pending, p)
		}
	}
	c.Render(http.StatusOK, "review", "Review "+itoa(r.ID)+": "+d.Entity.LegalName, "queue", page)
}

// decides reports whether the operator holds any permission an action needs.
func decides(c *webpage.Call) bool {
	for _, p := range []string{domain.PermReviewDecide, domain.PermReviewAssign, domain.PermRiskAssess, domain.PermProfileEdit} {
		if c.Session.Can(p) {
			return true
		}
	}
	return false
}

// auditRow is one record of the audit trail with how its operator was
// known: its signatures (a passkey decision's) each checked against the
// key the account's chain recorded, as audit.verify checks them.
type auditRow struct {
	domain.AuditRecord
	Checks []passkey.Check
}

// SessionCredential is the passkey a session's record names.
func (r auditRow) SessionCredential() string { return domain.SessionCredentialOf(r.AuditRecord) }

// auditRows is an entity's trail (oldest first, as read), newest first,
// its signatures checked.
func (h *handler) auditRows(ctx context.Context, accountID int64, trail []domain.AuditRecord) ([]auditRow, error) {
	checks, err := passkey.CheckTrail(ctx, h.d.Store, h.d.Passkeys.Config, accountID, trail)
	if err != nil {
		return nil, err
	}
	rows := make([]auditRow, len(trail))
	for i, rec := range trail {
		rows[len(trail)-1-i] = auditRow{AuditRecord: rec, Checks: checks[i]}
	}
	return rows, nil
}

// screeningSection fills the page's matches: the entity's latest completed
// screening's, each with its adjudication form and set beside the entity,
// then those of each party's latest screening (the policy judges each
// subject's own: decisions.ApproveBlockers), each saying whose it is.
func (h *handler) screeningSection(c *webpage.Call, d shownDossier, r domain.Review, page *reviewPage) error {
	entity, hasEntity, parties := subjectScreenings(d.Checks)
	withForms := func(rows []matchRow) []matchRow {
		for i := range rows {
			if f, ok := formFor(c.Session, domain.ActionAdjudicateMatch, r); ok {
				f.MatchID = rows[i].ID
				rows[i].Form = &f
			}
		}
		return rows
	}
	if sc := entity; hasEntity {
		row := checkRows([]domain.Check{sc})[0]
		page.Screening = &row
		page.Screened, page.Partial = screenedNames(sc)
		page.Matches = withForms(matchRows(sc, d.Entity))
		var err error
		if page.MatchNote, err = h.withComparisons(c, d.EntityDetail, sc, page.Matches); err != nil {
			return err
		}
	}
	for _, sc := range parties {
		rows := withForms(matchRows(sc, d.Entity))
		for i := range rows {
			rows[i].Party = domain.Deref(sc.SubjectDisplayName)
		}
		page.Matches = append(page.Matches, rows...)
	}
	return nil
}
