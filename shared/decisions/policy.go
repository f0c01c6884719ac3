package decisions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// The decision policy: what must hold of the entity before an action may
// be taken on its review, beyond the operator's permission and the
// review's status (the transition table). The README's decision table
// lists each action's preconditions. The policy is always on, for every
// account: no setting loosens it. Validate and Apply both check it (check),
// so a decision refused by it writes nothing, whatever path it came by.

// Kinds of blocker: what stands in an action's way.
const (
	// BlockOpenMatch: a match of the latest completed screening that no
	// operator has adjudicated.
	BlockOpenMatch = "open_match"
	// BlockConfirmedMatch: a match an operator confirmed (true_positive).
	BlockConfirmedMatch = "confirmed_match"
	// BlockRiskNotAssessed: the entity's risk was never assessed.
	BlockRiskNotAssessed = "risk_not_assessed"
	// BlockCheckNotCompleted: the latest check of a type the country's
	// intake requires is pending, running or failed.
	BlockCheckNotCompleted = "check_not_completed"
	// BlockCheckNeverRun: no check of a type the country's intake requires
	// has run on the entity.
	BlockCheckNeverRun = "check_never_run"
	// BlockPartialScreening: the latest screening of the entity ran
	// without the register's names (the register failed or did not know
	// the number), so the name that matters most was never screened.
	BlockPartialScreening = "partial_screening"
	// BlockPartyUnscreened: a current party the register lists has no
	// completed screening (its newest failed, or none ran).
	BlockPartyUnscreened = "party_unscreened"
	// BlockOwnersUndetermined: the register's parties were read and no
	// one qualifies as a beneficial owner on any basis (shared/ownership).
	BlockOwnersUndetermined = "owners_undetermined"
	// BlockPartyDiscrepancy: a party the merchant declared that the
	// register contradicts (checks.Discrepancies), not yet resolved by an
	// operator's record_party.
	BlockPartyDiscrepancy = "party_discrepancy"
)

// Blocker is one reason the policy refuses an action: its kind, what it is
// about (a match id, a check type, a setting) and the sentence that says
// so.
type Blocker struct {
	Kind  string
	About string
	Text  string
}

// ApproveBlockers lists everything that stands in the way of approving a
// review of the entity, none when it may be approved:
//
//   - every match of each subject's latest completed screening (the
//     entity's, each party's) adjudicated (in the entity's
//     DismissedMatches or ConfirmedMatches);
//   - no match confirmed a true positive: a confirmed hit is rejected, or
//     escalated to AML, whose officer rejects it (or judges the match again);
//   - the latest screening screened the register's names (not a partial
//     set: the register failed or did not know the number);
//   - a risk assessment;
//   - no declared party the register contradicts (checks.Discrepancies);
//   - where the register's parties were read, every current party
//     screened (its newest screening completed) and beneficial owners
//     determined on some basis;
//   - for each check type cfg's intake lists, a check of it has run on the
//     entity and its latest is completed (not pending, running or failed).
//
// checks are the entity's, newest first (as Store.EntityChecks lists them);
// cfg is the entity's country's configuration.
func ApproveBlockers(ent domain.Entity, checks []domain.Check, cfg domain.CountryConfig) []Blocker {
	var out []Blocker
	for _, sc := range subjectScreenings(checks) {
		of := "screening check " + fmt.Sprint(sc.ID)
		if sc.SubjectDisplayName != nil {
			of += " of party " + *sc.SubjectDisplayName
		}
		for _, id := range orderedMatchIDs(sc) {
			switch {
			case slices.Contains(ent.ConfirmedMatches, id) && !sanctionMatch(sc, id):
				// A confirmed PEP or other risk is judged: it stands in the
				// file (a PEP made the entity high risk), not in the way.
			case slices.Contains(ent.ConfirmedMatches, id):
				out = append(out, Blocker{Kind: BlockConfirmedMatch, About: id,
					Text: fmt.Sprintf("match %s of %s is confirmed a true positive: reject the review, or escalate it to AML", id, of)})
			case !slices.Contains(ent.DismissedMatches, id):
				out = append(out, Blocker{Kind: BlockOpenMatch, About: id,
					Text: fmt.Sprintf("match %s of %s is not adjudicated (adjudicate_match)", id, of)})
			}
		}
	}
	if ent.Ownership != nil {
		out = append(out, unscreenedParties(ent, checks)...)
	}
	for _, d := range discrepancies(ent.Parties) {
		out = append(out, Blocker{Kind: BlockPartyDiscrepancy, About: fmt.Sprint(d.PartyID),
			Text: fmt.Sprintf("declared party %d %s disagrees with the register (%s): correct or end it (record_party)", d.PartyID, d.Name, d.Text)})
	}
	if o := ent.Ownership; o != nil && !o.Determined {
		out = append(out, Blocker{Kind: BlockOwnersUndetermined, About: "beneficial_owners",
			Text: "the beneficial owners are not determined: the register lists no owner at " + o.ThresholdPc + " or more and no manager, and no operator has recorded who controls the business"})
	}
	if sc, ok := newestEntityCheck(checks, domain.CheckOrganizationScreening); ok && sc.Status == domain.CheckCompleted {
		if partial, _ := sc.Result["names_partial"].(bool); partial {
			out = append(out, Blocker{Kind: BlockPartialScreening, About: string(domain.CheckOrganizationScreening),
				Text: fmt.Sprintf("the latest screening (check %d) screened a partial set of names: %v; run the checks again once the register answers (queue_checks)", sc.ID, sc.Result["names_partial_reason"])})
		}
	}
	if ent.Risk == nil {
		out = append(out, Blocker{Kind: BlockRiskNotAssessed, About: "risk_level",
			Text: "the entity's risk is not assessed (assess_risk)"})
	}
	for _, ic := range cfg.IntakeChecks {
		latest, ok := newestEntityCheck(checks, ic.Type)
		switch {
		case !ok:
			out = append(out, Blocker{Kind: BlockCheckNeverRun, About: string(ic.Type),
				Text: fmt.Sprintf("no %s check, which %s's intake requires, has run (queue_checks)", ic.Type, cfg.CountryCode)})
		case latest.Status != domain.CheckCompleted:
			out = append(out, Blocker{Kind: BlockCheckNotCompleted, About: string(ic.Type),
				Text: fmt.Sprintf("the latest %s check (%d), which %s's intake requires, is %s (queue_checks)", ic.Type, latest.ID, cfg.CountryCode, latest.Status)})
		}
	}
	return out
}

// blocked is the DecisionBlocked refusal naming every blocker.
func blocked(req Request, st state, bs []Blocker) error {
	return domain.Errorf(domain.ECodeDecisionBlocked, "cannot %s review %d of entity %d: %s", req.Action, st.review.ID, st.entity.ID, Blockers(bs))
}

// Blockers are the blockers' sentences as a refusal names them, "; " between.
func Blockers(bs []Blocker) string {
	texts := make([]string, len(bs))
	for i, b := range bs {
		texts[i] = b.Text
	}
	return strings.Join(texts, "; ")
}

// approvePolicy refuses an approval the policy blocks (ApproveBlockers),
// reading the entity's checks and its country's configuration; a country
// no longer configured is held to the default configuration's checks.
func (s *Service) approvePolicy(ctx context.Context, req Request, st state) error {
	checks, err := s.Store.EntityChecks(ctx, st.review.AccountID, st.entity.ID, st.entity.ChecksCount)
	if err != nil {
		return err
	}
	cfg, err := s.Store.CountryConfig(ctx, req.AccountID, st.entity.CountryCode)
	switch domain.ErrorCode(err) {
	case "":
	case domain.ECodeNotFound:
		cfg = domain.DefaultCountryConfig(req.AccountID, st.entity.CountryCode, st.entity.CountryID, s.Clock.Now())
	default:
		return err
	}
	if bs := ApproveBlockers(st.entity, checks, cfg); len(bs) > 0 {
		return blocked(req, st, bs)
	}
	return nil
}

// unscreenedParties are the current parties whose newest screening did
// not complete (or who have none).
func unscreenedParties(ent domain.Entity, checks []domain.Check) []Blocker {
	var out []Blocker
	for _, p := range ent.Parties {
		if !p.Current {
			continue
		}
		var newest *domain.Check
		for i, c := range checks { // newest first
			if c.Type == domain.CheckOrganizationScreening && c.SubjectID != nil && *c.SubjectID == p.ID {
				newest = &checks[i]
				break
			}
		}
		switch {
		case newest == nil:
			out = append(out, Blocker{Kind: BlockPartyUnscreened, About: fmt.Sprint(p.ID),
				Text: fmt.Sprintf("party %s has never been screened (queue_checks)", p.Name)})
		case newest.Status != domain.CheckCompleted:
			out = append(out, Blocker{Kind: BlockPartyUnscreened, About: fmt.Sprint(p.ID),
				Text: fmt.Sprintf("the screening of party %s (check %d) is %s (queue_checks)", p.Name, newest.ID, newest.Status)})
		}
	}
	return out
}

// subjectScreenings are the newest completed screening of each subject
// in checks (newest first): the entity's own, then each party's, in the
// order met. Each is judged on its own: a party's newer screening never
// hides the entity's matches, nor the other way round.
func subjectScreenings(checks []domain.Check) []domain.Check {
	var out []domain.Check
	seen := map[int64]bool{}
	for _, c := range checks {
		if c.Type != domain.CheckOrganizationScreening || c.Status != domain.CheckCompleted {
			continue
		}
		var subject int64 // 0: the entity
		if c.SubjectID != nil {
			subject = *c.SubjectID
		}
		if seen[subject] {
			continue
		}
		seen[subject] = true
		if subject == 0 {
			out = append([]domain.Check{c}, out...)
		} else {
			out = append(out, c)
		}
	}
	return out
}

// screeningWith is the subject screening (subjectScreenings) that lists
// the match, the entity's first; without a match id, the entity's own
// newest screening (else the first there is).
func screeningWith(checks []domain.Check, matchID string) (domain.Check, bool) {
	scs := subjectScreenings(checks)
	for _, sc := range scs {
		if matchID != "" && slices.Contains(orderedMatchIDs(sc), matchID) {
			return sc, true
		}
	}
	if matchID == "" && len(scs) > 0 {
		return scs[0], true
	}
	return domain.Check{}, false
}

// entityScreening is the entity's own newest completed screening.
func entityScreening(checks []domain.Check) (domain.Check, bool) {
	for _, c := range checks {
		if c.Type == domain.CheckOrganizationScreening && c.Status == domain.CheckCompleted && c.SubjectID == nil {
			return c, true
		}
	}
	return domain.Check{}, false
}

// newestEntityCheck is the first check of the type on the entity itself
// (not one of its parties) in checks (newest first).
func newestEntityCheck(checks []domain.Check, t domain.CheckType) (domain.Check, bool) {
	for _, c := range checks {
		if c.Type == t && c.SubjectType == nil {
			return c, true
		}
	}
	return domain.Check{}, false
}

// orderedMatchIDs are the ids of a screening's matches in the provider's
// order.
func orderedMatchIDs(c domain.Check) []string {
	var out []string
	ms, _ := c.Result["matches"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			if id, ok := mm["id"].(string); ok && id != "" && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// lowersHighRisk reports whether the request assesses a high-risk entity's
// risk lower.
func lowersHighRisk(req Request, st state) bool {
	return req.Action == domain.ActionAssessRisk && st.entity.Risk != nil && st.entity.Risk.Level == domain.RiskHigh &&
		domain.RiskLevel(req.RiskLevel) != domain.RiskHigh
}
