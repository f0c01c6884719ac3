package checks

import (
	"context"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Every current party is screened at intake as a check of its own, its
// subject the party: a person by every name form the register gives, its
// honorific as title, its birth date and nationality where known (they
// tell namesakes apart); a company partner by its name, jurisdiction and
// number. One query a party, so that what an operator dismisses for one
// never hides a match of another.

// partyQuery is the screening query of a party.
func partyQuery(p domain.Party) ScreeningQuery {
	names, _ := ScreeningNames([]domain.EntityName{{Name: p.Name, Source: domain.NameRegister}})
	for i := range names {
		if names[i].Title == "" {
			names[i].Title = p.Title
		}
	}
	q := ScreeningQuery{Schema: "Person", Names: names, BirthDate: p.BirthDate, Nationality: p.Nationality}
	if p.Kind == domain.PartyCompany {
		q = ScreeningQuery{Schema: "Company", Names: names}
		if p.Identity.Type == domain.IdentityUnifiedNumber {
			q.Jurisdiction, q.RegistrationNumber = "sa", p.Identity.Number
		}
	}
	return q
}

// screenParties screens each current party of ps (one with an id: a
// check names its subject) concurrently, each within the screening's
// timeout; nil without in.Reserve (no check ids to be had) or without a
// screening in the country's intake.
func (r *Runner) screenParties(ctx context.Context, in IntakeInput, ps []domain.Party) []domain.Check {
	spec, ok := intakeSpec(in.Config, domain.CheckOrganizationScreening)
	var screened []domain.Party
	for _, p := range ps {
		if p.Current && p.ID != 0 {
			screened = append(screened, p)
		}
	}
	if !ok || in.Reserve == nil || len(screened) == 0 {
		return nil
	}
	ids, err := in.Reserve.ReserveCheckIDs(ctx, in.AccountID, len(screened))
	if err != nil {
		logging.From(ctx).Error("parties not screened: no check ids", "error", err.Error())
		return nil
	}
	out := make([]domain.Check, len(screened))
	var wg sync.WaitGroup
	for i, p := range screened {
		wg.Go(func() {
			c := domain.Check{ID: ids[i], AccountID: in.AccountID, Type: domain.CheckOrganizationScreening, ProviderKey: spec.ProviderKey,
				Status: domain.CheckRunning, TriggeringReason: firstNonEmpty(in.Trigger, domain.TriggerIntake), CreatedAt: r.Clock.Now(),
				ReviewID: in.ReviewID, SubjectType: new("party"), SubjectID: new(p.ID), SubjectDisplayName: new(p.Name)}
			q := partyQuery(p)
			cctx, cancel := context.WithTimeout(ctx, time.Duration(max(spec.TimeoutMS, 1))*time.Millisecond)
			defer cancel()
			out[i], _ = r.run(cctx, c, in, nameSet{party: &q})
		})
	}
	wg.Wait()
	return out
}

// intakeSpec is the country's intake check of the type.
func intakeSpec(cfg domain.CountryConfig, t domain.CheckType) (domain.IntakeCheck, bool) {
	for _, s := range cfg.IntakeChecks {
		if s.Type == t {
			return s, true
		}
	}
	return domain.IntakeCheck{}, false
}
