package dossier

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/ownership"
)

// People is who is behind the business, as an operator reads it before a
// verdict: the console's "Who is behind it" and the decision dossier's
// section of the same name render this one view.
type People struct {
	Parties    []PartyLine
	Owners     []OwnerLine
	Tree       []HolderNode // the ownership tree: the entity's holders, and a company holder's own
	Determined bool
	Known      bool // a determination was made (the register's parties read)
	Threshold  string
	Notes      []string // unresolved stakes and the register's counts that do not add up
}

// PartyLine is one party in words.
type PartyLine struct {
	ID                                                                             int64
	Name, Title, Kind, Roles, Share, Identity, Nationality, Via, Source, Screening string
	// Discrepancy is where a declared party and the register disagree
	// (checks.Discrepancies), "" where they do not.
	Discrepancy string
	Current     bool
}

// OwnerLine is one beneficial owner with its basis in words.
type OwnerLine struct{ Name, Basis, Percent, Chains string }

// HolderNode is a holder of a company's shares with its share of that
// company; a company holder's own holders below it.
type HolderNode struct {
	Name, Kind, Share string
	Holders           []HolderNode
}

var roleWords = map[domain.PartyRole]string{
	domain.RoleOwner: "owner or partner", domain.RoleManager: "manager", domain.RoleBoardMember: "board member",
	domain.RoleChair: "chair of the board", domain.RoleSignatory: "authorised signatory",
}

var basisWords = map[string]string{
	ownership.BasisOwnership: "ownership", ownership.BasisControl: "control by other means",
	ownership.BasisSeniorManagingOfficial: "senior managing official (no owner at the threshold)",
}

var sourceWords = map[domain.PartySource]string{
	domain.PartyFromRegister: "the register", domain.PartyDeclared: "declared by the merchant", domain.PartyFoundByOp: "found by an operator",
}

var kindWords = map[domain.PartyKind]string{domain.PartyPerson: "person", domain.PartyCompany: "company"}

// PeopleOf is the view of the entity's parties and beneficial owners, each
// party's screening read from cs: its own newest screening. A party's
// share is of its own company: its count over that company's holders'
// counts (the entity's for a direct party, the holding's for one held
// through it).
func PeopleOf(e domain.Entity, cs []domain.Check) People {
	var s People
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b domain.Check) int { return int(b.ID - a.ID) }) // ids grow as checks are made
	disagree := map[int64]string{}
	for _, d := range checks.Discrepancies(e.Parties) {
		disagree[d.PartyID] = d.Text
	}
	counted := checks.CountedParties(e.Parties)
	for _, p := range e.Parties {
		row := PartyLine{Discrepancy: disagree[p.ID], ID: p.ID, Name: p.Name, Title: p.Title, Kind: kindWords[p.Kind], Nationality: p.Nationality,
			Via: strings.Join(p.Via, " › "), Source: sourceWords[p.Source], Current: p.Current, Screening: partyScreening(p, cs)}
		var roles []string
		for _, r := range p.Roles {
			roles = append(roles, roleWords[r])
		}
		row.Roles = strings.Join(roles, ", ")
		row.Share = shareText(p, counted)
		if row.Share == "" && p.Current && p.Shares != nil && !slices.ContainsFunc(counted, func(q domain.Party) bool { return q.ID == p.ID }) {
			row.Share = fmt.Sprintf("%d shares declared, not counted beside the register's", p.Shares.Total)
		}
		if p.Identity.Number != "" {
			row.Identity = strings.ReplaceAll(p.Identity.Type, "_", " ") + " " + p.Identity.Number
		}
		if row.Nationality == "" {
			row.Nationality = p.NationalityRegister
		}
		s.Parties = append(s.Parties, row)
	}
	s.Tree = holders(counted, nil)
	if o := e.Ownership; o != nil {
		s.Known, s.Determined, s.Threshold = true, o.Determined, o.ThresholdPc
		for _, b := range o.Owners {
			s.Owners = append(s.Owners, OwnerLine{Name: b.Name, Basis: basisWords[b.Basis], Percent: b.Percent, Chains: strings.Join(b.Chains, "; ")})
		}
		s.Notes = append(append(s.Notes, o.Unresolved...), o.Findings...)
	}
	return s
}

// shareText is the party's share of its company in words among counted
// (the parties the ownership counts), "" when it holds no counted shares.
func shareText(p domain.Party, all []domain.Party) string {
	if p.Shares == nil || !p.HasRole(domain.RoleOwner) || !slices.ContainsFunc(all, func(q domain.Party) bool { return q.ID == p.ID }) {
		return ""
	}
	var total int64
	for _, q := range all {
		if q.Shares != nil && q.HasRole(domain.RoleOwner) && q.Current && slices.Equal(q.Via, p.Via) {
			total += q.Shares.Total
		}
	}
	if total == 0 {
		return ""
	}
	return ownership.PercentOf(big.NewRat(p.Shares.Total, total)) + fmt.Sprintf(" (%d shares)", p.Shares.Total)
}

// holders are the current holders of the company that via leads to (the
// entity for none), a company holder's own holders below it.
func holders(all []domain.Party, via []string) []HolderNode {
	var out []HolderNode
	for _, p := range all {
		if !p.Current || !p.HasRole(domain.RoleOwner) || !slices.Equal(p.Via, via) {
			continue
		}
		n := HolderNode{Name: p.Name, Kind: kindWords[p.Kind], Share: shareText(p, all)}
		if p.Kind == domain.PartyCompany && p.Identity.Number != "" && len(via) < 8 {
			n.Holders = holders(all, append(slices.Clone(via), p.Identity.Number))
		}
		out = append(out, n)
	}
	return out
}

// partyScreening says in words how the party's newest screening went (cs
// newest first).
func partyScreening(p domain.Party, cs []domain.Check) string {
	for _, c := range cs {
		if c.Type != domain.CheckOrganizationScreening || c.SubjectID == nil || *c.SubjectID != p.ID {
			continue
		}
		if c.Status != domain.CheckCompleted {
			return "screening " + string(c.Status)
		}
		if n := fmt.Sprint(c.Result["matches_count"]); c.Result["matches_count"] != nil && n != "0" {
			return fmt.Sprintf("%s match(es), screened as %v (check %d)", n, c.Result["status"], c.ID)
		}
		return fmt.Sprintf("screened: nothing found (check %d)", c.ID)
	}
	return "not screened"
}

// PeopleMarkdown is the view as the decision dossier's section: what the
// operator decided on about the people, kept and hashed with the rest.
// The API's Markdown view does not carry it (the contract shows parties
// only as a count).
func PeopleMarkdown(s People) string {
	var b strings.Builder
	b.WriteString("\n## People behind the business\n\n")
	if len(s.Parties) == 0 {
		b.WriteString("No party is recorded.\n")
	} else {
		b.WriteString("| Party | Kind | Roles | Share | Identity | Nationality | Source | Current | Screening |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, p := range s.Parties {
			name := mdCell(p.Name)
			if p.Via != "" {
				name += " (held through " + mdCell(p.Via) + ")"
			}
			if p.Discrepancy != "" {
				name += " — **disagrees with the register**: " + mdCell(p.Discrepancy)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, mdCell(p.Kind), mdCell(p.Roles), mdCell(p.Share),
				mdCell(p.Identity), mdCell(p.Nationality), mdCell(p.Source), map[bool]string{true: "yes", false: "ended"}[p.Current], mdCell(p.Screening))
		}
	}
	if len(s.Tree) > 0 {
		b.WriteString("\nOwnership:\n\n")
		writeTree(&b, s.Tree, 0)
	}
	switch {
	case !s.Known:
		b.WriteString("\nBeneficial owners: not determined (the register's parties were not read).\n")
	case !s.Determined:
		fmt.Fprintf(&b, "\nBeneficial owners: not determined (no owner at %s or more, no recorded control, no manager).\n", s.Threshold)
	default:
		fmt.Fprintf(&b, "\nBeneficial owners (at %s or more, else by control, else the senior managing officials):\n\n", s.Threshold)
		for _, o := range s.Owners {
			fmt.Fprintf(&b, "- %s — %s", mdCell(o.Name), o.Basis)
			if o.Percent != "" {
				fmt.Fprintf(&b, ", %s", o.Percent)
			}
			if o.Chains != "" {
				fmt.Fprintf(&b, " (%s)", mdCell(o.Chains))
			}
			b.WriteString("\n")
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "\n- Note: %s\n", mdCell(n))
	}
	return b.String()
}

func writeTree(b *strings.Builder, ns []HolderNode, depth int) {
	for _, n := range ns {
		fmt.Fprintf(b, "%s- %s, %s", strings.Repeat("  ", depth), mdCell(n.Name), n.Kind)
		if n.Share != "" {
			fmt.Fprintf(b, ": %s", n.Share)
		}
		b.WriteString("\n")
		writeTree(b, n.Holders, depth+1)
	}
}
