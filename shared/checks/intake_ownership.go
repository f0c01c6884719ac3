package checks

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/ownership"
)

// Who owns the business: the register's company partners are looked up in
// the register in turn, to MaxOwnershipDepth levels, each lookup a registry
// check whose subject is the company partner (its answer kept as its
// evidence), the people they list becoming parties held through them
// (Party.Via); from the counts shared/ownership derives the stakes and the
// beneficial owners by the law's order.

// IDReserver reserves ids for what an intake learns of only as it runs:
// the parties a register lists, and the lookups of its company partners.
type IDReserver interface {
	ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	ReservePartyIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
}

// MaxOwnershipDepth is how many levels of company partners below the
// entity the register is asked about.
const MaxOwnershipDepth = 2

// holderKey identifies a holder across the ownership tree: its identity
// number (a company's is its unified number), else its name.
func holderKey(p domain.Party) string {
	if p.Identity.Number != "" {
		return p.Identity.Number
	}
	return "name:" + nameKey(p.Name)
}

// lookedUp tells a company partner the register can be asked about: a
// Saudi unified number (7…).
func lookedUp(p domain.Party) bool {
	return p.Kind == domain.PartyCompany && p.Identity.Type == domain.IdentityUnifiedNumber && strings.HasPrefix(p.Identity.Number, "7")
}

// followOwners looks up the company partners among parties (the entity's,
// from its register) level by level, and returns every party (those held
// through a company partner added, once each), the checks made (the
// company partners' lookups, the parties' screenings), and the beneficial
// owners determined. Without in.Reserve no lookup is made (the
// ids their checks and parties need cannot be had): the determination
// then rests on the direct parties alone.
func (r *Runner) followOwners(ctx context.Context, in IntakeInput, spec domain.IntakeCheck, name string, parties []domain.Party, at time.Time) ([]domain.Party, []domain.Check, *domain.Ownership) {
	all := append([]domain.Party(nil), parties...)
	known := knownByKey(in.KnownParties)
	r.assignPartyIDs(ctx, in, all, known)
	// Each party is screened as soon as it is known, beside the lookups.
	var (
		screenings []domain.Check
		mu         sync.Mutex
		screening  sync.WaitGroup
	)
	screen := func(ps []domain.Party) {
		screening.Go(func() {
			cs := r.screenParties(ctx, in, ps)
			mu.Lock()
			screenings = append(screenings, cs...)
			mu.Unlock()
		})
	}
	screen(all)
	seen := map[string]bool{}
	for _, p := range all {
		seen[holderKey(p)] = true
	}
	var lookups []domain.Check
	level := []domain.Party{}
	for _, p := range all {
		if lookedUp(p) {
			level = append(level, p)
		}
	}
	for depth := 1; depth <= MaxOwnershipDepth && len(level) > 0 && in.Reserve != nil; depth++ {
		ids, err := in.Reserve.ReserveCheckIDs(ctx, in.AccountID, len(level))
		if err != nil {
			logging.From(ctx).Error("company partners not looked up: no check ids", "error", err.Error())
			break
		}
		checks := make([]domain.Check, len(level))
		found := make([][]domain.Party, len(level))
		var wg sync.WaitGroup
		for i, company := range level {
			wg.Go(func() {
				sub := in
				sub.RegistrationNumber = company.Identity.Number
				c := domain.Check{ID: ids[i], AccountID: in.AccountID, Type: domain.CheckRegistryLookup, ProviderKey: spec.ProviderKey,
					Status: domain.CheckRunning, TriggeringReason: firstNonEmpty(in.Trigger, domain.TriggerIntake), CreatedAt: r.Clock.Now(),
					ReviewID: in.ReviewID, SubjectType: new("party"), SubjectID: new(company.ID), SubjectDisplayName: new(company.Name)}
				cctx, cancel := context.WithTimeout(ctx, time.Duration(max(spec.TimeoutMS, 1))*time.Millisecond)
				defer cancel()
				checks[i], found[i] = r.run(cctx, c, sub, nameSet{})
			})
		}
		wg.Wait()
		var next []domain.Party
		for i, company := range level {
			lookups = append(lookups, checks[i])
			if checks[i].Status != domain.CheckCompleted {
				continue
			}
			held := append(append([]string(nil), company.Via...), company.Identity.Number)
			var added []domain.Party
			for _, p := range found[i] {
				if !p.HasRole(domain.RoleOwner) {
					continue
				}
				if seen[holderKey(p)] {
					// Found again through this company: the same party holds
					// these shares too.
					alsoHeld(all, holderKey(p), held, p.Shares)
					continue
				}
				seen[holderKey(p)] = true
				p.Via = held
				p.Since = checks[i].CheckedAt
				// Held through a company partner: an owner, not one of the
				// entity's managers.
				p.Roles, p.RoleWords = []domain.PartyRole{domain.RoleOwner}, nil
				added = append(added, p)
			}
			r.assignPartyIDs(ctx, in, added, known)
			screen(added)
			for _, p := range added {
				if lookedUp(p) {
					next = append(next, p)
				}
			}
			all = append(all, added...)
		}
		level = next
	}
	// A party the register listed before and lists no more has ended; one
	// a merchant declared or an operator recorded stays as it was (and,
	// current, is screened again with the others).
	listed := knownByKey(all)
	var kept []domain.Party
	for _, p := range in.KnownParties {
		switch {
		case p.Source != domain.PartyFromRegister:
			kept = append(kept, p)
		case !listedStill(listed, p) && p.Current:
			p.Current, p.Until = false, &at
			all = append(all, p)
		}
	}
	if len(kept) > 0 {
		screen(kept)
		all = append(all, kept...)
	}
	screening.Wait()
	return all, append(lookups, screenings...), OwnershipOf(in.RegistrationNumber, name, all, at, in.OwnershipThresholdPercent)
}

func listedStill(listed map[string]domain.Party, p domain.Party) bool {
	q, ok := listed[holderKey(p)]
	return ok && q.Source == domain.PartyFromRegister
}

// alsoHeld records on the party of key among all that it holds shares of
// the company via leads to as well.
func alsoHeld(all []domain.Party, key string, via []string, shares *domain.ShareCounts) {
	for i := range all {
		if holderKey(all[i]) != key {
			continue
		}
		h := domain.Holding{Via: via}
		if shares != nil {
			h.Shares = shares.Total
		}
		all[i].AlsoHeld = append(all[i].AlsoHeld, h)
		return
	}
}

// knownByKey are parties by their holder key.
func knownByKey(ps []domain.Party) map[string]domain.Party {
	m := map[string]domain.Party{}
	for _, p := range ps {
		m[holderKey(p)] = p
	}
	return m
}

// assignPartyIDs gives ps ids: a party already known (a re-run) keeps its
// id and since; the others get ids reserved in the account (left 0 without
// a reserver, or when none could be had: the store gives them then).
func (r *Runner) assignPartyIDs(ctx context.Context, in IntakeInput, ps []domain.Party, known map[string]domain.Party) {
	var fresh []int
	for i := range ps {
		if k, ok := known[holderKey(ps[i])]; ok && k.ID != 0 {
			ps[i].ID, ps[i].Since = k.ID, k.Since
			continue
		}
		fresh = append(fresh, i)
	}
	if in.Reserve == nil || len(fresh) == 0 {
		return
	}
	ids, err := in.Reserve.ReservePartyIDs(ctx, in.AccountID, len(fresh))
	if err != nil {
		logging.From(ctx).Error("party ids not reserved: the store gives them", "error", err.Error())
		return
	}
	for k, i := range fresh {
		ps[i].ID = ids[k]
	}
}

// OwnershipOf is the beneficial-owner determination from the entity's
// parties (root its registration number, name its name): each company's
// holders are the current parties held directly under it (Via's last link,
// or a holding in AlsoHeld), so the determination made at intake and the
// one made again when an operator records a party are one computation.
// A party a merchant declared counts only where no current party of the
// register's stands beside it (a declaration the register contradicts is
// a discrepancy, not a share: Discrepancies); the persons an operator
// recorded as controlling are the controllers; the entity's own current
// managers, board and chair its senior managing officials. thresholdPc is
// the account's threshold in whole percent (0, or 25 and more: the law's
// 25 %); the determination records the one it applied.
func OwnershipOf(root, name string, parties []domain.Party, at time.Time, thresholdPc int) *domain.Ownership {
	counted := CountedParties(parties)
	companies := map[string]ownership.Company{}
	holder := func(company, companyName string, p domain.Party, count *int64) {
		c, ok := companies[company]
		if !ok {
			c = ownership.Company{Key: company, Name: companyName}
		}
		h := ownership.Holder{Key: holderKey(p), Name: p.Name, Person: p.Kind == domain.PartyPerson}
		if count != nil {
			h.Count = *count
		}
		c.Holders = append(c.Holders, h)
		companies[company] = c
	}
	names := map[string]string{root: name}
	for _, p := range counted {
		if p.Kind == domain.PartyCompany && p.Identity.Number != "" {
			names[p.Identity.Number] = p.Name
		}
	}
	byKey := map[string]domain.Party{}
	var controllers, officials []ownership.Person
	for _, p := range counted {
		byKey[holderKey(p)] = p
		if p.Kind == domain.PartyPerson && p.Controls {
			controllers = append(controllers, ownership.Person{Key: holderKey(p), Name: p.Name})
		}
		if len(p.Via) == 0 && p.Kind == domain.PartyPerson && (p.HasRole(domain.RoleManager) || p.HasRole(domain.RoleBoardMember) || p.HasRole(domain.RoleChair)) {
			officials = append(officials, ownership.Person{Key: holderKey(p), Name: p.Name})
		}
		if !p.HasRole(domain.RoleOwner) {
			continue
		}
		company := root
		if len(p.Via) > 0 {
			company = p.Via[len(p.Via)-1]
		}
		var count *int64
		if p.Shares != nil {
			count = &p.Shares.Total
		}
		holder(company, names[company], p, count)
		for _, h := range p.AlsoHeld {
			if len(h.Via) > 0 {
				holder(h.Via[len(h.Via)-1], names[h.Via[len(h.Via)-1]], p, &h.Shares)
			}
		}
	}
	if _, ok := companies[root]; !ok {
		companies[root] = ownership.Company{Key: root, Name: name}
	}
	threshold := big.NewRat(int64(domain.AccountSettings{OwnershipThresholdPercent: thresholdPc}.OwnershipThreshold()), 100)
	d := ownership.BeneficialOwners(root, companies, MaxOwnershipDepth, threshold, controllers, officials)
	o := &domain.Ownership{Determined: d.Determined, ThresholdPc: ownership.PercentOf(threshold), At: at}
	for _, b := range d.Owners {
		bo := domain.BeneficialOwner{PartyID: byKey[b.Key].ID, Name: b.Name, Basis: b.Basis, Percent: b.Percent()}
		for _, c := range b.Chains {
			bo.Chains = append(bo.Chains, strings.Join(c, " > "))
		}
		o.Owners = append(o.Owners, bo)
	}
	for _, u := range d.Unresolved {
		o.Unresolved = append(o.Unresolved, u.Name+" ("+u.Percent()+", its owners not known)")
	}
	for _, f := range d.Findings {
		o.Findings = append(o.Findings, f.Error())
	}
	return o
}

// CountedParties are the current parties a determination counts: a
// declared one only where the register lists no current party of the same
// company.
func CountedParties(ps []domain.Party) []domain.Party {
	registered := map[string]bool{}
	for _, p := range ps {
		if p.Current && p.Source == domain.PartyFromRegister {
			registered[lastLink(p.Via)] = true
		}
	}
	var out []domain.Party
	for _, p := range ps {
		if p.Current && (p.Source != domain.PartyDeclared || !registered[lastLink(p.Via)]) {
			out = append(out, p)
		}
	}
	return out
}

// lastLink is the company a party is held under: the last of its chain, ""
// for the entity itself.
func lastLink(via []string) string {
	if len(via) == 0 {
		return ""
	}
	return via[len(via)-1]
}
