package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// The register's parties — owners and partners with their shares, managers
// and board members with their positions — read from either generation's
// fullinfo answer as the entity's parties (source register, current). The
// register gives no percentage: the raw share counts are kept and
// shared/ownership derives the shares.

// registerIdentity is a party's identity as either generation writes it.
type registerIdentity struct {
	ID       json.RawMessage `json:"id"`
	TypeID   json.RawMessage `json:"typeId"`
	TypeName string          `json:"typeName"`
	Type     string          `json:"type"` // the legacy API's
}

// currentParty is a row of the current API's parties[].
type currentParty struct {
	Name         string            `json:"name"`
	TypeName     string            `json:"typeName"`
	Identity     *registerIdentity `json:"identity"`
	Partnership  []idName          `json:"partnership"`
	PartnerShare *struct {
		Cash   *int64 `json:"cashContributionCount"`
		InKind *int64 `json:"inKindContributionCount"`
		Total  *int64 `json:"totalContributionCount"`
	} `json:"partnerShare"`
	Nationality *idName         `json:"nationality"`
	CRNumber    json.RawMessage `json:"crNumber"`
}

// currentManager is a row of the current API's management.managers[].
type currentManager struct {
	Name        string            `json:"name"`
	Identity    *registerIdentity `json:"identity"`
	Nationality *idName           `json:"nationality"`
	Positions   []idName          `json:"positions"`
}

// legacyParty is a row of the legacy API's parties[]: owners, partners and
// managers in one list, the role in relation.name.
type legacyParty struct {
	Name        string            `json:"name"`
	BirthDate   string            `json:"birthDate"`
	SharesCount *int64            `json:"sharesCount"`
	Identity    *registerIdentity `json:"identity"`
	Relation    *idName           `json:"relation"`
	Nationality *idName           `json:"nationality"`
}

// currentParties reads the current answer's parties and managers, the
// managers' positions and the nationalities resolved through the
// register's lookups (managerPositions, nationalities). A person who is
// both partner and manager is one party with both roles. A lookup that
// cannot be read leaves what it would explain as the register gave it
// (the nationality unmapped, the position read from its own name): the
// register's answer stands, and the next lookup tries again.
func (w *Wathq) currentParties(ctx context.Context, parties []currentParty, managers []currentManager) []domain.Party {
	var out []domain.Party
	nat := func(n *idName) (iso, raw string) {
		if n == nil || (jsonScalar(n.ID) == "" && n.Name == "") {
			return "", ""
		}
		raw = strings.TrimSpace(jsonScalar(n.ID) + " " + n.Name)
		id, err := strconv.Atoi(jsonScalar(n.ID))
		if err != nil {
			return "", raw
		}
		rows, err := w.lookup(ctx, "nationalities")
		if err != nil {
			return "", raw
		}
		if c, ok := country.ISO().ByName(rows[id].NameEn); ok {
			iso = c.Alpha2
		}
		return iso, raw
	}
	for _, p := range parties {
		party := registerParty(p.Name, p.Identity)
		party.Roles = []domain.PartyRole{domain.RoleOwner}
		for _, x := range p.Partnership {
			party.RoleWords = appendWord(party.RoleWords, x.Name)
		}
		if n := jsonScalar(p.CRNumber); n != "" {
			party.Kind = domain.PartyCompany
			if party.Identity.Number == "" {
				party.Identity = domain.PartyIdentity{Type: domain.IdentityUnifiedNumber, Number: n}
			}
		}
		if s := p.PartnerShare; s != nil {
			party.Shares = &domain.ShareCounts{Cash: deref64(s.Cash), InKind: deref64(s.InKind), Total: deref64(s.Total)}
			if s.Total == nil {
				party.Shares.Total = party.Shares.Cash + party.Shares.InKind
			}
		}
		party.Nationality, party.NationalityRegister = nat(p.Nationality)
		out = append(out, party)
	}
	for _, m := range managers {
		party := registerParty(m.Name, m.Identity)
		var roles []domain.PartyRole
		for _, pos := range m.Positions {
			word := pos.Name
			if id, err := strconv.Atoi(jsonScalar(pos.ID)); err == nil {
				if rows, err := w.lookup(ctx, "managerPositions"); err == nil {
					word = firstNonEmpty(rows[id].NameEn, word)
				}
			}
			party.RoleWords = appendWord(party.RoleWords, firstNonEmpty(pos.Name, word))
			roles = appendRole(roles, roleOfWords(word, domain.RoleManager))
		}
		if len(roles) == 0 {
			roles = []domain.PartyRole{domain.RoleManager}
		}
		party.Roles = roles
		party.Nationality, party.NationalityRegister = nat(m.Nationality)
		out = mergeParty(out, party)
	}
	return out
}

// legacyParties reads the legacy answer's parties, each row's role from
// its relation's name; rows of one identity are one party.
func legacyParties(rows []legacyParty) []domain.Party {
	var out []domain.Party
	for _, p := range rows {
		party := registerParty(p.Name, p.Identity)
		role := domain.RoleOwner
		if p.Relation != nil {
			role = roleOfWords(p.Relation.Name, domain.RoleOwner)
			party.RoleWords = appendWord(nil, p.Relation.Name)
		}
		party.Roles = []domain.PartyRole{role}
		if p.SharesCount != nil && role == domain.RoleOwner {
			party.Shares = &domain.ShareCounts{Total: *p.SharesCount}
		}
		party.BirthDateRegister = strings.TrimSpace(p.BirthDate)
		party.BirthDate = gregorianDate(party.BirthDateRegister)
		if p.Nationality != nil {
			party.NationalityRegister = strings.TrimSpace(jsonScalar(p.Nationality.ID) + " " + p.Nationality.Name)
		}
		out = mergeParty(out, party)
	}
	return out
}

// registerParty is a party of the register by its name and identity: a
// person unless its identity is a company's.
func registerParty(name string, id *registerIdentity) domain.Party {
	rest, title := SplitTitle(strings.TrimSpace(name))
	p := domain.Party{Kind: domain.PartyPerson, Name: rest, Title: title, Source: domain.PartyFromRegister, Current: true}
	if id != nil {
		p.Identity = domain.PartyIdentity{Type: identityType(firstNonEmpty(id.TypeName, id.Type)), Number: jsonScalar(id.ID)}
	}
	if p.Identity.Type == domain.IdentityUnifiedNumber || p.Identity.Type == domain.IdentityForeignCR {
		p.Kind = domain.PartyCompany
	}
	return p
}

// identityType is our name for the register's identity type.
func identityType(t string) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "national_id", "nationalid", "national id":
		return domain.IdentityNationalID
	case "resident_id", "iqama":
		return domain.IdentityIqama
	case "passport":
		return domain.IdentityPassport
	case "gcc_id":
		return domain.IdentityGCC
	case "cr_national_id":
		return domain.IdentityUnifiedNumber
	case "foreign_cr_no":
		return domain.IdentityForeignCR
	}
	return strings.TrimSpace(t)
}

// roleOfWords reads a role from the register's words for it (a relation
// or position name, in English or Arabic); def when none is recognised.
func roleOfWords(words string, def domain.PartyRole) domain.PartyRole {
	w := strings.ToLower(words)
	switch {
	case strings.Contains(w, "chair") || strings.Contains(w, "رئيس مجلس"):
		return domain.RoleChair
	case strings.Contains(w, "board") || strings.Contains(w, "عضو مجلس"):
		return domain.RoleBoardMember
	case strings.Contains(w, "signator") || strings.Contains(w, "مفوض"):
		return domain.RoleSignatory
	case strings.Contains(w, "manager") || strings.Contains(w, "director") || strings.Contains(w, "مدير"):
		return domain.RoleManager
	case strings.Contains(w, "partner") || strings.Contains(w, "owner") || strings.Contains(w, "شريك") || strings.Contains(w, "مالك"):
		return domain.RoleOwner
	}
	return def
}

// mergeParty adds p to ps, or its roles to the party of the same identity
// (or, with none, the same name) already there.
func mergeParty(ps []domain.Party, p domain.Party) []domain.Party {
	for i := range ps {
		same := p.Identity.Number != "" && ps[i].Identity == p.Identity
		if p.Identity.Number == "" && ps[i].Identity.Number == "" {
			same = nameKey(ps[i].Name) == nameKey(p.Name)
		}
		if !same {
			continue
		}
		for _, r := range p.Roles {
			ps[i].Roles = appendRole(ps[i].Roles, r)
		}
		for _, w := range p.RoleWords {
			ps[i].RoleWords = appendWord(ps[i].RoleWords, w)
		}
		if ps[i].Shares == nil {
			ps[i].Shares = p.Shares
		}
		ps[i].Nationality = firstNonEmpty(ps[i].Nationality, p.Nationality)
		ps[i].NationalityRegister = firstNonEmpty(ps[i].NationalityRegister, p.NationalityRegister)
		ps[i].BirthDate = firstNonEmpty(ps[i].BirthDate, p.BirthDate)
		ps[i].BirthDateRegister = firstNonEmpty(ps[i].BirthDateRegister, p.BirthDateRegister)
		return ps
	}
	return append(ps, p)
}

func appendRole(rs []domain.PartyRole, r domain.PartyRole) []domain.PartyRole {
	if slices.Contains(rs, r) {
		return rs
	}
	return append(rs, r)
}

func appendWord(ws []string, w string) []string {
	if w = strings.TrimSpace(w); w == "" || slices.Contains(ws, w) {
		return ws
	}
	return append(ws, w)
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// gregorianDate is a register's YYYY/MM/DD (or YYYY-MM-DD) as YYYY-MM-DD
// when it is a Gregorian date; "" for a Hijri one (year before 1700) or
// anything else.
func gregorianDate(s string) string {
	var y, m, d int
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, "-", "/"), "%d/%d/%d", &y, &m, &d); err != nil || y < 1700 || m < 1 || m > 12 || d < 1 || d > 31 {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}
