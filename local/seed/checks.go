package seed

import (
	"math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// buildChecks returns the checks in creation order: intake registry lookup,
// intake screening, then the one check run later, if any; those their
// provider answered carry the answer (answerAll).
func buildChecks(r *rand.Rand, p plan, e domain.Entity, life span, m marks, i int, turns listingTurns) []domain.Check {
	out := plannedChecks(r, p, life, m, i, turns)
	answerAll(out, e)
	return out
}

// plannedChecks are the checks as planned: their statuses, times and
// outcomes, with results that say only what the plan chose.
func plannedChecks(r *rand.Rand, p plan, life span, m marks, i int, turns listingTurns) []domain.Check {
	var out []domain.Check
	at := life.after(life.from, time.Duration(1000+r.IntN(500))*time.Millisecond)
	if p.registry.status != "" {
		out = append(out, check(r, domain.CheckRegistryLookup, domain.TriggerIntake, p.registry, at, life))
	}
	at = life.after(life.from, time.Duration(2000+r.IntN(1000))*time.Millisecond)
	if p.screening.status != "" {
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerIntake, p.screening, at, life))
	}
	if p.extra == extraNone {
		return out
	}
	prev := out[len(out)-1].CreatedAt
	switch p.extra {
	case extraOperatorRescreen, extraParty:
		at = life.at(between(r, 0.3, 0.6))
		if !m.initialStarted.IsZero() && m.periodicCreated.IsZero() {
			at = m.initialStarted
		}
		if !m.periodicCreated.IsZero() {
			at = life.at(between(r, 0.32, 0.48)) // between the two reviews
		}
	case extraPeriodicRescreen, extraPeriodicLookup:
		at = life.after(m.periodicCreated, time.Duration(2000+r.IntN(8000))*time.Millisecond)
	}
	if !at.After(prev) {
		at = prev.Add(time.Millisecond)
	}
	switch p.extra {
	case extraOperatorRescreen:
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerOperatorRequested, p.extraCheck, at, life))
	case extraParty:
		ch := check(r, domain.CheckOrganizationScreening, domain.TriggerOperatorRequested, p.extraCheck, at, life)
		ch.SubjectType = new("party")
		ch.SubjectID = new(int64(100_000 + i*8 + r.IntN(8)))
		ch.SubjectDisplayName = new(pick(r, partyNames))
		// A party whose screening finds something bears a listed name.
		if cp := p.extraCheck; cp.status == domain.CheckCompleted && cp.outcome != scrClear {
			if l, ok := turns.next("", true, cp.outcome); ok {
				ch.SubjectDisplayName = new(l.Name)
			}
		}
		out = append(out, ch)
	case extraPeriodicRescreen:
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerPeriodicReview, p.extraCheck, at, life))
	case extraPeriodicLookup:
		out = append(out, check(r, domain.CheckRegistryLookup, domain.TriggerPeriodicReview, p.extraCheck, at, life))
	}
	return out
}

// check builds one check created at created. A completed one's result holds
// only its outcome (and a screening's drawn count of matches) until answer
// reads the full result from the provider's answer (Bulk leaves it so).
func check(r *rand.Rand, typ domain.CheckType, trigger string, cp checkPlan, created time.Time, life span) domain.Check {
	ch := domain.Check{
		Type:             typ,
		ProviderKey:      providerScreening,
		Status:           cp.status,
		TriggeringReason: trigger,
		CreatedAt:        created,
		UpdatedAt:        created,
	}
	timeout := time.Duration(domain.DefaultScreeningTimeoutMS) * time.Millisecond
	took := time.Duration(3000+r.IntN(600_000)) * time.Millisecond
	if typ == domain.CheckRegistryLookup {
		ch.ProviderKey = providerRegistry
		timeout = time.Duration(domain.DefaultRegistryTimeoutMS) * time.Millisecond
		took = time.Duration(400+r.IntN(4000)) * time.Millisecond
	}
	switch cp.status {
	case domain.CheckPending:
		ch.ProviderStatus = "queued"
		ch.Result = map[string]any{"status": "pending"}
	case domain.CheckRunning:
		ch.ProviderStatus = "processing"
		ch.Result = map[string]any{"status": "running"}
		ch.UpdatedAt = life.after(created, time.Duration(200+r.IntN(2000))*time.Millisecond)
	case domain.CheckFailed:
		failure := weighted(r, c("timeout", 60), c("503", 25), c("429", 15))
		ch.ProviderStatus = failure
		if failure == "timeout" {
			took = timeout
		}
		ch.Result = map[string]any{"status": "failed", "error": map[string]string{
			"timeout": "provider_timeout", "503": "provider_unavailable", "429": "rate_limited",
		}[failure]}
		ch.CheckedAt = new(life.after(created, took))
		ch.UpdatedAt = *ch.CheckedAt
	case domain.CheckCompleted:
		if typ == domain.CheckRegistryLookup {
			ch.ProviderStatus = cp.outcome
			ch.Result = map[string]any{"status": cp.outcome}
		} else {
			ch.ProviderStatus = "200"
			n := 0
			switch cp.outcome {
			case scrHit:
				n = 1 + r.IntN(3)
			case scrNeedsReview:
				n = 1 + r.IntN(5)
			}
			ch.Result = map[string]any{"status": cp.outcome, "matched": n > 0, "matches_count": n}
		}
		ch.CheckedAt = new(life.after(created, took))
		ch.UpdatedAt = *ch.CheckedAt
	}
	return ch
}

// latest returns the last check of the type in creation order for which ok
// holds, or nil.
func latest(checks []domain.Check, typ domain.CheckType, ok func(domain.Check) bool) *domain.Check {
	var last *domain.Check
	for k := range checks {
		ch := &checks[k]
		if ch.Type == typ && ok(*ch) && (last == nil || !ch.CreatedAt.Before(last.CreatedAt)) {
			last = ch
		}
	}
	return last
}

func anyCheck(domain.Check) bool { return true }

// sanctionsFrom is the outcome of the latest screening when it completed,
// else not_run.
func sanctionsFrom(checks []domain.Check) domain.SanctionsStatus {
	last := latest(checks, domain.CheckOrganizationScreening, anyCheck)
	if last == nil || last.Status != domain.CheckCompleted {
		return domain.SanctionsNotRun
	}
	return domain.SanctionsStatus(last.Result["status"].(string))
}

// registrationFrom follows the latest completed registry lookup. Without one
// (always outside Saudi Arabia) an operator's decision on the documents
// stands in: valid once approved, invalid when rejected for it.
func registrationFrom(p plan, checks []domain.Check) domain.RegistrationStatus {
	last := latest(checks, domain.CheckRegistryLookup, func(ch domain.Check) bool { return ch.Status == domain.CheckCompleted })
	if last != nil {
		return registryToRegistration[last.Result["status"].(string)]
	}
	if p.country == saCode {
		return domain.RegistrationUnknown
	}
	switch {
	case p.initialReason == ReasonRegistryInvalid || p.periodicReason == ReasonRegistryInvalid:
		return domain.RegistrationInvalid
	case p.initialOutcome == domain.OutcomeApproved:
		return domain.RegistrationValid
	}
	return domain.RegistrationUnknown
}
