package decisions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// plan computes what an action writes: the new review and entity, what it
// creates, and the audit record with the before and after of what changed.
func (s *Service) plan(ctx context.Context, req Request, st state) (domain.Decision, domain.Review, error) {
	now := s.Clock.Now()
	rev, ent := st.review, st.entity
	reviewChanged, entityChanged := false, false
	var newReview *domain.Review
	var newChecks []domain.Check
	after := map[string]any{}

	complete := func(outcome string) {
		rev.Status = domain.ReviewCompleted
		rev.Outcome = new(outcome)
		rev.OutcomeReason = new(req.Reason)
		rev.CompletedAt = &now
		rev.Escalation = nil
		ent.Status = entityStatusAfter(rev, outcome)
		reviewChanged, entityChanged = true, true
	}

	switch req.Action {
	case domain.ActionAssign:
		assignee, err := s.Store.Operator(ctx, req.AccountID, req.AssigneeID)
		if err != nil {
			return domain.Decision{}, domain.Review{}, err
		}
		rev.AssignedUserID, rev.AssignedUserName = &assignee.ID, new(assignee.Name)
		reviewChanged = true
	case domain.ActionStart:
		rev.Status = domain.ReviewInProgress
		rev.StartedAt = &now
		if rev.AssignedUserID == nil {
			rev.AssignedUserID, rev.AssignedUserName = &st.operator.ID, new(st.operator.Name)
		}
		reviewChanged = true
	case domain.ActionEscalate:
		rev.Status, rev.Escalation = domain.ReviewEscalated, new(domain.EscalationSupervisor)
		reviewChanged = true
	case domain.ActionEscalateToAML:
		rev.Status, rev.Escalation = domain.ReviewEscalated, new(domain.EscalationAML)
		reviewChanged = true
	case domain.ActionApprove:
		complete(domain.OutcomeApproved)
	case domain.ActionReject:
		complete(domain.OutcomeRejected)
	case domain.ActionCancel:
		rev.Status, rev.CompletedAt, rev.Escalation = domain.ReviewCancelled, &now, nil
		rev.OutcomeReason = new(req.Reason)
		reviewChanged = true
	case domain.ActionQueueChecks:
		cs, err := s.rerun(ctx, req, st, &ent)
		if err != nil {
			return domain.Decision{}, domain.Review{}, err
		}
		newChecks = cs
		rev.ChecksQueuedAt = &now
		rev.ChecksCount += len(cs)
		ent.ChecksCount += len(cs)
		reviewChanged, entityChanged = true, true
		ids := make([]int64, len(cs))
		for i, c := range cs {
			ids[i] = c.ID
		}
		after["check_ids"] = ids
	case domain.ActionAdjudicateMatch:
		latest, err := s.latestScreening(ctx, st, req.MatchID)
		if err != nil {
			return domain.Decision{}, domain.Review{}, err
		}
		if req.Verdict == domain.VerdictFalsePositive {
			if !containsString(ent.DismissedMatches, req.MatchID) {
				ent.DismissedMatches = append(append([]string(nil), ent.DismissedMatches...), req.MatchID)
			}
		} else {
			ent.DismissedMatches = without(ent.DismissedMatches, req.MatchID)
		}
		ent.SanctionsStatus = sanctionsAfterAdjudication(latest, ent.DismissedMatches, req.Verdict)
		entityChanged = true
		after["match_id"], after["verdict"] = req.MatchID, req.Verdict
	case domain.ActionAssessRisk:
		ent.Risk = &domain.RiskAssessment{Level: domain.RiskLevel(req.RiskLevel), AssessedAt: now}
		entityChanged = true
	case domain.ActionUpdateProfile:
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
		set(&ent.WebsiteURL, req.WebsiteURL)
		set(&ent.SocialURL, req.SocialURL)
		set(&ent.ActivitySummary, req.ActivitySummary)
		if ent.Score != nil { // online presence counts in the coverage score
			ent.Score = checks.Coverage(checks.CoverageFrom(ent))
		}
		entityChanged = true
	case domain.ActionEndRelationship:
		years := domain.RetentionYears(ent.CountryCode, st.account.Settings)
		until := domain.RetainUntil(now, years)
		ent.RelationshipEndedAt, ent.RetainUntil = &now, &until
		entityChanged = true
		// The closure record: locked with the trail, it tells records
		// expired under retention apart from records removed.
		after["relationship_ended_at"], after["retain_until"] = domain.FormatTime(now), domain.FormatTime(until)
		after["retention_rule"], after["retention_years"] = domain.RetentionRuleFor(ent.CountryCode).Name, years
	case domain.ActionOpenPeriodicReview:
		newReview = &domain.Review{
			AccountID: req.AccountID, EntityID: ent.ID, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen,
			CreatedAt: now, UpdatedAt: now,
		}
		ent.Status = domain.EntityUnderMonitoring
		ent.ReviewsCount++
		entityChanged = true
	default:
		return domain.Decision{}, domain.Review{}, domain.Errorf(domain.ECodeBadRequest, "%q is not an action", req.Action)
	}

	d := domain.Decision{NewReview: newReview, NewChecks: newChecks}
	before := map[string]any{}
	if reviewChanged {
		rev.UpdatedAt = now
		diff(reviewSnapshot(st.review), reviewSnapshot(rev), before, after)
		d.Review, d.ReviewWas = &rev, st.review.Status
	}
	if entityChanged {
		ent.UpdatedAt = now
		diff(entitySnapshot(st.entity), entitySnapshot(ent), before, after)
		d.Entity = &ent
	}
	reviewID := st.review.ID
	d.Audit = domain.AuditRecord{
		AccountID: req.AccountID, ActionID: req.ActionID, Action: req.Action,
		OperatorID: st.operator.ID, OperatorName: st.operator.Name, Actor: req.Actor, RequestID: req.RequestID,
		ReviewID: &reviewID, EntityID: ent.ID, Reason: req.Reason,
		Before: before, After: after, At: now,
	}
	// For a new review the store adds its id to the audit record's after.
	return d, rev, nil
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
	d := s.Checker.Intake(ctx, checks.IntakeInput{
		AccountID: req.AccountID, RegistrationNumber: ent.RegistrationNumber, CountryCode: ent.CountryCode,
		CountryID: ent.CountryID, DeclaredName: ent.LegalName, Config: cfg, CheckIDs: ids,
		Trigger: domain.TriggerOperatorRequested, ReviewID: &reviewID, ExcludeEntityIDs: ent.DismissedMatches,
	})
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

// sanctionsAfterAdjudication: a confirmed match is a hit; dismissing
// matches leaves the strongest remaining one to decide (none left: clear).
func sanctionsAfterAdjudication(latest domain.Check, dismissed []string, verdict string) domain.SanctionsStatus {
	if verdict == domain.VerdictTruePositive {
		return domain.SanctionsHit
	}
	status := domain.SanctionsClear
	ms, _ := latest.Result["matches"].([]any)
	for _, m := range ms {
		mm, _ := m.(map[string]any)
		id, _ := mm["id"].(string)
		if containsString(dismissed, id) {
			continue
		}
		score, _ := mm["score"].(float64)
		if score >= 0.9 {
			return domain.SanctionsHit
		}
		status = domain.SanctionsNeedsReview
	}
	return status
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
		"risk_level": "", "risk_level_updated_at": "", "current_score": "", "entity_checks_count": e.ChecksCount,
		"entity_reviews_count": e.ReviewsCount,
	}
	if e.Risk != nil {
		m["risk_level"], m["risk_level_updated_at"] = string(e.Risk.Level), domain.FormatTime(e.Risk.AssessedAt)
	}
	if e.Score != nil {
		m["current_score"] = e.Score.Value
	}
	return m
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
