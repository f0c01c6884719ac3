package decisions

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// plan computes what an action writes: the new review and entity, what it
// creates, and the audit record with the before and after of what changed.
func (s *Service) plan(ctx context.Context, req Request, st state) (domain.Decision, domain.Review, error) {
	c := &change{now: s.Clock.Now(), rev: st.review, ent: st.entity, after: map[string]any{}}
	if err := s.act(ctx, req, st, c); err != nil {
		return domain.Decision{}, domain.Review{}, err
	}
	d := c.decision(req, st) // before c.rev is read: it sets UpdatedAt
	// For a new review the store adds its id to the audit record's after.
	return d, c.rev, nil
}

// change is what an action does to the review and its entity as plan
// works it out: their new values, whether each changed, what the action
// creates, and what the audit record's after names beyond the changed
// fields.
type change struct {
	now                          time.Time
	rev                          domain.Review
	ent                          domain.Entity
	reviewChanged, entityChanged bool
	newReview                    *domain.Review
	newChecks                    []domain.Check
	after                        map[string]any
}

// act applies the request's action to c.
func (s *Service) act(ctx context.Context, req Request, st state, c *change) error {
	switch req.Action {
	case domain.ActionAssign:
		assignee, err := s.Store.Operator(ctx, req.AccountID, req.AssigneeID)
		if err != nil {
			return err
		}
		c.rev.AssignedUserID, c.rev.AssignedUserName = &assignee.ID, new(assignee.Name)
		c.reviewChanged = true
	case domain.ActionStart:
		c.start(st.operator)
	case domain.ActionEscalate:
		c.escalate(domain.EscalationSupervisor)
	case domain.ActionEscalateToAML:
		c.escalate(domain.EscalationAML)
	case domain.ActionApprove:
		c.complete(domain.OutcomeApproved, req.Reason)
	case domain.ActionReject:
		c.complete(domain.OutcomeRejected, req.Reason)
	case domain.ActionCancel:
		c.rev.Status, c.rev.CompletedAt, c.rev.Escalation = domain.ReviewCancelled, &c.now, nil
		c.rev.OutcomeReason = new(req.Reason)
		c.reviewChanged = true
	case domain.ActionQueueChecks:
		return s.queueChecks(ctx, req, st, c)
	case domain.ActionAdjudicateMatch:
		return s.adjudicate(ctx, req, st, c)
	case domain.ActionAssessRisk:
		c.ent.Risk = &domain.RiskAssessment{Level: domain.RiskLevel(req.RiskLevel), AssessedAt: c.now}
		c.entityChanged = true
	case domain.ActionUpdateProfile:
		c.updateProfile(req)
	case domain.ActionEndRelationship:
		c.endRelationship(st.account.Settings)
	case domain.ActionRecordParty:
		return s.recordParty(ctx, req, c, st.account.Settings.OwnershipThreshold())
	case domain.ActionOpenPeriodicReview:
		c.newReview = &domain.Review{
			AccountID: req.AccountID, EntityID: c.ent.ID, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen,
			CreatedAt: c.now, UpdatedAt: c.now,
		}
		c.ent.Status = domain.EntityUnderMonitoring
		c.ent.ReviewsCount++
		c.entityChanged = true
	default:
		return domain.Errorf(domain.ECodeBadRequest, "%q is not an action", req.Action)
	}
	return nil
}

// start puts the review in progress, assigned to the operator who starts
// it unless someone is assigned already.
func (c *change) start(operator domain.Operator) {
	c.rev.Status = domain.ReviewInProgress
	c.rev.StartedAt = &c.now
	if c.rev.AssignedUserID == nil {
		c.rev.AssignedUserID, c.rev.AssignedUserName = &operator.ID, new(operator.Name)
	}
	c.reviewChanged = true
}

func (c *change) escalate(to string) {
	c.rev.Status, c.rev.Escalation = domain.ReviewEscalated, new(to)
	c.reviewChanged = true
}

// complete closes the review with an outcome, which sets the entity's
// status too.
func (c *change) complete(outcome, reason string) {
	c.rev.Status = domain.ReviewCompleted
	c.rev.Outcome = new(outcome)
	c.rev.OutcomeReason = new(reason)
	c.rev.CompletedAt = &c.now
	c.rev.Escalation = nil
	c.ent.Status = entityStatusAfter(c.rev, outcome)
	c.reviewChanged, c.entityChanged = true, true
}

// queueChecks runs the country's checks again (rerun) and counts them on
// the review and the entity; the audit record names them.
func (s *Service) queueChecks(ctx context.Context, req Request, st state, c *change) error {
	cs, err := s.rerun(ctx, req, st, &c.ent)
	if err != nil {
		return err
	}
	c.newChecks = cs
	c.rev.ChecksQueuedAt = &c.now
	c.rev.ChecksCount += len(cs)
	c.ent.ChecksCount += len(cs)
	c.reviewChanged, c.entityChanged = true, true
	ids := make([]int64, len(cs))
	for i, ch := range cs {
		ids[i] = ch.ID
	}
	c.after["check_ids"] = ids
	return nil
}

// adjudicate dismisses (false positive) or confirms (true positive) a match
// of the latest screening, keeping it in the entity's DismissedMatches or
// ConfirmedMatches, and sets the entity's sanctions status from what is
// left.
func (s *Service) adjudicate(ctx context.Context, req Request, st state, c *change) error {
	latest, err := s.latestScreening(ctx, st, req.MatchID)
	if err != nil {
		return err
	}
	// A match is in one list at most: the latest verdict's.
	kept, dropped := &c.ent.DismissedMatches, &c.ent.ConfirmedMatches
	if req.Verdict == domain.VerdictTruePositive {
		kept, dropped = dropped, kept
	}
	if !containsString(*kept, req.MatchID) {
		*kept = append(append([]string(nil), *kept...), req.MatchID)
	}
	*dropped = without(*dropped, req.MatchID)
	// The entity's sanctions status follows its own screening's matches.
	if own, ok, err := s.entityScreening(ctx, st); err != nil {
		return err
	} else if ok {
		c.ent.SanctionsStatus = sanctionsAfterAdjudication(own, c.ent)
	}
	// The trail says what was judged: a sanction, a PEP or another risk.
	c.after["match_class"] = matchClass(latest, req.MatchID)
	// A confirmed PEP makes the entity high risk: its approval is then a
	// high-risk one (four eyes where the account asks for them).
	if req.Verdict == domain.VerdictTruePositive && matchClass(latest, req.MatchID) == checks.ClassPEP {
		c.ent.Risk = &domain.RiskAssessment{Level: domain.RiskHigh, AssessedAt: c.now}
	}
	c.entityChanged = true
	return nil
}

// updateProfile sets the online presence the request names ("" clears a
// field), rescoring an entity that has a score.
func (c *change) updateProfile(req Request) {
	set := func(dst **string, v *string) {
		if v == nil {
			return
		}
		if *v == "" {
			*dst = nil
		} else {
			*dst = new(*v)
		}
	}
	set(&c.ent.WebsiteURL, req.WebsiteURL)
	set(&c.ent.SocialURL, req.SocialURL)
	set(&c.ent.ActivitySummary, req.ActivitySummary)
	if c.ent.Score != nil { // online presence counts in the coverage score
		c.ent.Score = checks.Coverage(checks.CoverageFrom(c.ent))
	}
	c.entityChanged = true
}

// endRelationship ends the relationship now and keeps the records for the
// retention the country's rule and the account's settings give.
func (c *change) endRelationship(settings domain.AccountSettings) {
	years := domain.RetentionYears(c.ent.CountryCode, settings)
	until := domain.RetainUntil(c.now, years)
	c.ent.RelationshipEndedAt, c.ent.RetainUntil = &c.now, &until
	c.entityChanged = true
	// The closure record: locked with the trail, it tells records
	// expired under retention apart from records removed.
	c.after["relationship_ended_at"], c.after["retain_until"] = domain.FormatTime(c.now), domain.FormatTime(until)
	c.after["retention_rule"], c.after["retention_years"] = domain.RetentionRuleFor(c.ent.CountryCode).Name, years
}

// decision is what c writes: the changed review and entity (updated now),
// what it creates, and the audit record with the before and after of what
// changed.
func (c *change) decision(req Request, st state) domain.Decision {
	d := domain.Decision{NewReview: c.newReview, NewChecks: c.newChecks}
	before := map[string]any{}
	if c.reviewChanged {
		c.rev.UpdatedAt = c.now
		diff(reviewSnapshot(st.review), reviewSnapshot(c.rev), before, c.after)
		d.Review, d.ReviewWas = &c.rev, st.review.Status
	}
	if c.entityChanged {
		c.ent.UpdatedAt = c.now
		diff(entitySnapshot(st.entity), entitySnapshot(c.ent), before, c.after)
		d.Entity = &c.ent
	}
	// What the request asked, as its signed document says it: the record
	// counts as the decision only when the two agree (passkey's rule).
	maps.Copy(c.after, fieldValues(req))
	reviewID := st.review.ID
	d.Audit = domain.AuditRecord{
		AccountID: req.AccountID, ActionID: req.ActionID, Action: req.Action,
		OperatorID: st.operator.ID, OperatorName: st.operator.Name, Actor: req.Actor, RequestID: req.RequestID,
		ReviewID: &reviewID, EntityID: c.ent.ID, Reason: req.Reason,
		Before: before, After: c.after, At: c.now,
	}
	return d
}

// rerun runs the country's checks again for the entity, recording them
// as requested by an operator and excluding dismissed matches, and applies
// what completed to the entity.
func (s *Service) rerun(ctx context.Context, req Request, st state, ent *domain.Entity) ([]domain.Check, error) {
	if s.Checker == nil {
		return nil, errors.New("queue_checks: no checker is configured")
	}
	cfg, err := s.Store.CountryConfig(ctx, req.AccountID, ent.CountryCode)
	if err != nil {
		return nil, notFound(err, "configuration of country %s", ent.CountryCode)
	}
	ids, err := s.Store.ReserveCheckIDs(ctx, req.AccountID, len(cfg.IntakeChecks))
	if err != nil {
		return nil, err
	}
	reviewID := st.review.ID
	in := checks.IntakeInput{
		AccountID: req.AccountID, RegistrationNumber: ent.RegistrationNumber, CountryCode: ent.CountryCode,
		CountryID: ent.CountryID, KnownNames: ent.Names, Config: cfg, CheckIDs: ids,
		Trigger: domain.TriggerOperatorRequested, ReviewID: &reviewID, ExcludeEntityIDs: ent.DismissedMatches,
		KnownParties: ent.Parties, Reserve: s.Store, OwnershipThresholdPercent: st.account.Settings.OwnershipThreshold(),
	}
	if len(ent.Names) == 0 {
		// An entity kept before its names were: its legal name is all it has.
		in.DeclaredName = ent.LegalName
	}
	d := s.Checker.Intake(ctx, in)
	for i := range d.Checks {
		d.Checks[i].EntityID = ent.ID
	}
	if err := s.recordChanges(ctx, *ent, d.Checks); err != nil {
		return nil, err
	}
	// What a completed check found replaces what was known; a failed
	// check changes nothing.
	for _, c := range d.Checks {
		if c.Status != domain.CheckCompleted {
			continue
		}
		switch c.Type {
		case domain.CheckRegistryLookup:
			ent.RegistrationStatus = d.Entity.RegistrationStatus
			if d.Entity.LegalName != "" {
				ent.LegalName = d.Entity.LegalName
			}
		case domain.CheckOrganizationScreening:
			ent.SanctionsStatus = d.Entity.SanctionsStatus
		}
	}
	// The names as this run knows them (the register's replaced when it
	// answered, the declared ones kept): the audit record's before and
	// after show a change.
	if len(d.Entity.Names) > 0 {
		ent.Names = d.Entity.Names
	}
	// The parties as the register lists them now (each screened again),
	// and who owns the business by them.
	if d.Entity.Ownership != nil {
		ent.Parties, ent.Ownership = d.Entity.Parties, d.Entity.Ownership
	}
	if d.Entity.Score != nil || ent.Score != nil {
		in := checks.CoverageFrom(*ent)
		for _, c := range d.Checks {
			if c.Status == domain.CheckCompleted && c.Type == domain.CheckOrganizationScreening {
				in.Screened = true
			}
		}
		ent.Score = checks.Coverage(in)
	}
	return d.Checks, nil
}

// sanctionsAfterAdjudication is the sanctions status the sanction-class
// matches of the latest screening leave (a PEP's or another risk's match
// never makes one): a confirmed one is a hit; dismissed ones are left out;
// of the others the strongest decides (none left: clear).
func sanctionsAfterAdjudication(latest domain.Check, ent domain.Entity) domain.SanctionsStatus {
	status := domain.SanctionsClear
	ms, _ := latest.Result["matches"].([]any)
	for _, m := range ms {
		mm, _ := m.(map[string]any)
		id, _ := mm["id"].(string)
		if classOf(mm) != checks.ClassSanction || containsString(ent.DismissedMatches, id) {
			continue
		}
		score, _ := mm["score"].(float64)
		if score >= 0.9 || containsString(ent.ConfirmedMatches, id) {
			return domain.SanctionsHit
		}
		status = domain.SanctionsNeedsReview
	}
	return status
}

// classOf is a kept match's class; a match kept before matches were
// classified (no class) is read as it was then, a sanction.
func classOf(m map[string]any) string {
	if c, ok := m["class"].(string); ok && c != "" {
		return c
	}
	return checks.ClassSanction
}

// sanctionMatch tells a sanction-class match of the screening.
func sanctionMatch(c domain.Check, id string) bool { return matchClass(c, id) == checks.ClassSanction }

// matchClass is the class of the screening's match id.
func matchClass(c domain.Check, id string) string {
	ms, _ := c.Result["matches"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok && mm["id"] == id {
			return classOf(mm)
		}
	}
	return checks.ClassSanction
}

func reviewSnapshot(r domain.Review) map[string]any {
	return map[string]any{
		"status": string(r.Status), "outcome": domain.Deref(r.Outcome), "outcome_reason": domain.Deref(r.OutcomeReason),
		"assigned_user_id": domain.Deref(r.AssignedUserID), "escalation": domain.Deref(r.Escalation),
		"started_at": timeOrEmpty(r.StartedAt), "completed_at": timeOrEmpty(r.CompletedAt),
		"checks_queued_at": timeOrEmpty(r.ChecksQueuedAt), "checks_count": r.ChecksCount,
	}
}

func entitySnapshot(e domain.Entity) map[string]any {
	m := map[string]any{
		"entity_status": string(e.Status), "legal_name": e.LegalName, "registration_status": string(e.RegistrationStatus),
		"sanctions_status": string(e.SanctionsStatus), "website_url": domain.Deref(e.WebsiteURL), "social_url": domain.Deref(e.SocialURL),
		"business_activity_summary": domain.Deref(e.ActivitySummary), "dismissed_matches": fmt.Sprint(e.DismissedMatches),
		"confirmed_matches": fmt.Sprint(e.ConfirmedMatches), "risk_level": "", "risk_level_updated_at": "", "current_score": "",
		"entity_checks_count": e.ChecksCount, "entity_reviews_count": e.ReviewsCount, "names": namesText(e.Names),
		"parties": partiesText(e.Parties), "beneficial_owners": ownersText(e.Ownership),
	}
	if e.Risk != nil {
		m["risk_level"], m["risk_level_updated_at"] = string(e.Risk.Level), domain.FormatTime(e.Risk.AssessedAt)
	}
	if e.Score != nil {
		m["current_score"] = e.Score.Value
	}
	return m
}

// partiesText is an entity's parties as its audit records show them: each
// with its id, roles, shares, identity and whether current.
func partiesText(ps []domain.Party) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		roles := make([]string, len(p.Roles))
		for k, r := range p.Roles {
			roles[k] = string(r)
		}
		t := fmt.Sprintf("%d %s (%s; %s", p.ID, p.Name, p.Kind, strings.Join(roles, ", "))
		if p.Shares != nil {
			t += fmt.Sprintf("; %d shares", p.Shares.Total)
		}
		if p.Identity.Number != "" {
			t += "; " + p.Identity.Type + " " + p.Identity.Number
		}
		if len(p.Via) > 0 {
			t += "; via " + strings.Join(p.Via, " > ")
		}
		if !p.Current {
			t += "; ended"
		}
		parts[i] = t + ")"
	}
	return strings.Join(parts, "; ")
}

// ownersText is the beneficial-owner determination as audit records show
// it.
func ownersText(o *domain.Ownership) string {
	if o == nil {
		return ""
	}
	// The threshold applied first: an account may lower it, and the
	// trail shows by which the owners were named.
	at := ""
	if o.ThresholdPc != "" {
		at = "at " + o.ThresholdPc + ": "
	}
	if !o.Determined {
		return at + "not determined"
	}
	parts := make([]string, len(o.Owners))
	for i, b := range o.Owners {
		parts[i] = fmt.Sprintf("%d %s: %s %s", b.PartyID, b.Name, b.Basis, b.Percent)
	}
	return at + strings.Join(parts, "; ")
}

// namesText is an entity's names as its audit records show them.
func namesText(ns []domain.EntityName) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.Name + " (" + domain.NameSourceWords(n.Source) + ")"
	}
	return strings.Join(parts, "; ")
}

// diff records the fields whose values differ.
func diff(old, cur, before, after map[string]any) {
	for k, v := range cur {
		if fmt.Sprint(old[k]) != fmt.Sprint(v) {
			before[k], after[k] = old[k], v
		}
	}
}

func timeOrEmpty(t *time.Time) string {
	if t == nil {
		return ""
	}
	return domain.FormatTime(*t)
}

func containsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func without(list []string, v string) []string {
	var out []string
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
