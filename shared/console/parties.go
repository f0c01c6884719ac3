package console

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/ownership"
)

// partyRow is one party of the entity as the review page lists it: who
// they are, what they are to the business, and how they were screened.
type partyRow struct {
	Name, Title, Kind, Roles, Share, Identity, Nationality, Via, Source, Screening string
	Current                                                                        bool
}

// ownerRow is one beneficial owner, with its basis in words.
type ownerRow struct{ Name, Basis, Percent, Chains string }

// partiesSection is the page's "Who is behind it": the parties, the
// beneficial owners and what could not be determined.
type partiesSection struct {
	Parties    []partyRow
	Owners     []ownerRow
	Determined bool
	Known      bool // a determination was made (the register's parties read)
	Threshold  string
	Notes      []string // unresolved stakes and the register's counts that do not add up
}

var roleWords = map[domain.PartyRole]string{
	domain.RoleOwner: "owner or partner", domain.RoleManager: "manager", domain.RoleBoardMember: "board member",
	domain.RoleChair: "chair of the board", domain.RoleSignatory: "authorised signatory",
}

var basisWords = map[string]string{
	ownership.BasisOwnership: "ownership", ownership.BasisControl: "control by other means",
	ownership.BasisSeniorManagingOfficial: "senior managing official (no owner at the threshold)",
}

// parties builds the section from the entity and its checks: each party's
// share of its company is its count over the company's holders' counts
// (the entity's for a direct party, the holding's for one held through it).
func parties(e domain.Entity, cs []domain.Check) partiesSection {
	var s partiesSection
	cs = slices.Clone(cs)
	slices.SortFunc(cs, newestFirst)
	totals := map[string]int64{} // company (its last link, "" for the entity) → its holders' counts
	for _, p := range e.Parties {
		if p.Shares != nil && p.HasRole(domain.RoleOwner) {
			totals[lastLink(p.Via)] += p.Shares.Total
		}
	}
	for _, p := range e.Parties {
		row := partyRow{Name: p.Name, Title: p.Title, Kind: map[domain.PartyKind]string{domain.PartyPerson: "person", domain.PartyCompany: "company"}[p.Kind],
			Nationality: p.Nationality, Via: strings.Join(p.Via, " › "), Source: string(p.Source), Current: p.Current, Screening: partyScreening(p, cs)}
		var roles []string
		for _, r := range p.Roles {
			roles = append(roles, roleWords[r])
		}
		row.Roles = strings.Join(roles, ", ")
		if p.Shares != nil && totals[lastLink(p.Via)] > 0 {
			row.Share = ownership.PercentOf(big.NewRat(p.Shares.Total, totals[lastLink(p.Via)])) + fmt.Sprintf(" (%d shares)", p.Shares.Total)
		}
		if p.Identity.Number != "" {
			row.Identity = strings.ReplaceAll(p.Identity.Type, "_", " ") + " " + p.Identity.Number
		}
		if row.Nationality == "" {
			row.Nationality = p.NationalityRegister
		}
		s.Parties = append(s.Parties, row)
	}
	if o := e.Ownership; o != nil {
		s.Known, s.Determined, s.Threshold = true, o.Determined, o.ThresholdPc
		for _, b := range o.Owners {
			s.Owners = append(s.Owners, ownerRow{Name: b.Name, Basis: basisWords[b.Basis], Percent: b.Percent, Chains: strings.Join(b.Chains, "; ")})
		}
		s.Notes = append(append(s.Notes, o.Unresolved...), o.Findings...)
	}
	return s
}

func lastLink(via []string) string {
	if len(via) == 0 {
		return ""
	}
	return via[len(via)-1]
}

// partyScreening says in words how the party's newest screening went.
func partyScreening(p domain.Party, cs []domain.Check) string {
	for _, c := range cs { // newest first
		if c.Type != domain.CheckOrganizationScreening || c.SubjectID == nil || *c.SubjectID != p.ID {
			continue
		}
		if c.Status != domain.CheckCompleted {
			return "screening " + string(c.Status)
		}
		if n := plain(c.Result["matches_count"]); n != "" && n != "0" {
			return n + " match(es): see the screening matches below"
		}
		return "screened: nothing found"
	}
	return "not screened"
}
