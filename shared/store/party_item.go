package store

import "github.com/evs-kyb/evs/shared/domain"

// partyItem is a party as the entity's item keeps it, in its parties list:
// an entity's parties are read with it (O(parties), one item) and written
// in the same transaction as its count, current_relationships_count.
type partyItem struct {
	PartyID             int64         `dynamo:"party_id"`
	Kind                string        `dynamo:"kind"`
	Name                string        `dynamo:"name"`
	Title               string        `dynamo:"title,omitempty"`
	Roles               []string      `dynamo:"roles,omitempty"`
	RoleWords           []string      `dynamo:"role_words,omitempty"`
	SharesCash          *int64        `dynamo:"shares_cash,omitempty"`
	SharesInKind        *int64        `dynamo:"shares_in_kind,omitempty"`
	SharesTotal         *int64        `dynamo:"shares_total,omitempty"`
	IdentityType        string        `dynamo:"identity_type,omitempty"`
	IdentityNumber      string        `dynamo:"identity_number,omitempty"`
	Nationality         string        `dynamo:"nationality,omitempty"`
	NationalityRegister string        `dynamo:"nationality_register,omitempty"`
	BirthDate           string        `dynamo:"birth_date,omitempty"`
	BirthDateRegister   string        `dynamo:"birth_date_register,omitempty"`
	Source              string        `dynamo:"source"`
	Current             bool          `dynamo:"current"`
	Since               string        `dynamo:"since,omitempty"`
	Until               string        `dynamo:"until,omitempty"`
	Via                 []string      `dynamo:"via,omitempty"`
	Controls            bool          `dynamo:"controls,omitempty"`
	ControlNote         string        `dynamo:"control_note,omitempty"`
	AlsoHeld            []holdingItem `dynamo:"also_held,omitempty"`
}

// holdingItem is a party's other holding (domain.Holding).
type holdingItem struct {
	Via    []string `dynamo:"via"`
	Shares int64    `dynamo:"shares"`
}

// ownershipItem is an entity's beneficial-owner determination.
type ownershipItem struct {
	Owners      []beneficialOwnerItem `dynamo:"owners,omitempty"`
	Determined  bool                  `dynamo:"determined"`
	Unresolved  []string              `dynamo:"unresolved,omitempty"`
	Findings    []string              `dynamo:"findings,omitempty"`
	ThresholdPc string                `dynamo:"threshold"`
	At          string                `dynamo:"at"`
}

type beneficialOwnerItem struct {
	PartyID int64    `dynamo:"party_id"`
	Name    string   `dynamo:"name"`
	Basis   string   `dynamo:"basis"`
	Percent string   `dynamo:"percent,omitempty"`
	Chains  []string `dynamo:"chains,omitempty"`
}

func newOwnershipItem(o *domain.Ownership) *ownershipItem {
	if o == nil {
		return nil
	}
	it := &ownershipItem{Determined: o.Determined, Unresolved: o.Unresolved, Findings: o.Findings, ThresholdPc: o.ThresholdPc, At: fmtTime(o.At)}
	for _, b := range o.Owners {
		it.Owners = append(it.Owners, beneficialOwnerItem{PartyID: b.PartyID, Name: b.Name, Basis: b.Basis, Percent: b.Percent, Chains: b.Chains})
	}
	return it
}

func (it *ownershipItem) domain() *domain.Ownership {
	if it == nil {
		return nil
	}
	o := &domain.Ownership{Determined: it.Determined, Unresolved: it.Unresolved, Findings: it.Findings, ThresholdPc: it.ThresholdPc, At: parseTime(it.At)}
	for _, b := range it.Owners {
		o.Owners = append(o.Owners, domain.BeneficialOwner{PartyID: b.PartyID, Name: b.Name, Basis: b.Basis, Percent: b.Percent, Chains: b.Chains})
	}
	return o
}

func partyItems(ps []domain.Party) []partyItem {
	var out []partyItem
	for _, p := range ps {
		it := partyItem{PartyID: p.ID, Kind: string(p.Kind), Name: p.Name, Title: p.Title, RoleWords: p.RoleWords,
			IdentityType: p.Identity.Type, IdentityNumber: p.Identity.Number, Nationality: p.Nationality,
			NationalityRegister: p.NationalityRegister, BirthDate: p.BirthDate, BirthDateRegister: p.BirthDateRegister,
			Source: string(p.Source), Current: p.Current, Via: p.Via, Controls: p.Controls, ControlNote: p.ControlNote,
			AlsoHeld: holdingItems(p.AlsoHeld)}
		for _, r := range p.Roles {
			it.Roles = append(it.Roles, string(r))
		}
		if s := p.Shares; s != nil {
			it.SharesCash, it.SharesInKind, it.SharesTotal = &s.Cash, &s.InKind, &s.Total
		}
		if p.Since != nil {
			it.Since = fmtTime(*p.Since)
		}
		if p.Until != nil {
			it.Until = fmtTime(*p.Until)
		}
		out = append(out, it)
	}
	return out
}

func parties(accountID, entityID int64, its []partyItem) []domain.Party {
	var out []domain.Party
	for _, it := range its {
		p := domain.Party{ID: it.PartyID, AccountID: accountID, EntityID: entityID, Kind: domain.PartyKind(it.Kind), Name: it.Name,
			Title: it.Title, RoleWords: it.RoleWords, Identity: domain.PartyIdentity{Type: it.IdentityType, Number: it.IdentityNumber},
			Nationality: it.Nationality, NationalityRegister: it.NationalityRegister, BirthDate: it.BirthDate,
			BirthDateRegister: it.BirthDateRegister, Source: domain.PartySource(it.Source), Current: it.Current,
			Since: parseOptTime(it.Since), Until: parseOptTime(it.Until), Via: it.Via, Controls: it.Controls, ControlNote: it.ControlNote,
			AlsoHeld: holdingsOf(it.AlsoHeld)}
		for _, r := range it.Roles {
			p.Roles = append(p.Roles, domain.PartyRole(r))
		}
		if it.SharesTotal != nil {
			p.Shares = &domain.ShareCounts{Cash: deref(it.SharesCash), InKind: deref(it.SharesInKind), Total: *it.SharesTotal}
		}
		out = append(out, p)
	}
	return out
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func holdingItems(hs []domain.Holding) []holdingItem {
	var out []holdingItem
	for _, h := range hs {
		out = append(out, holdingItem{Via: h.Via, Shares: h.Shares})
	}
	return out
}

func holdingsOf(its []holdingItem) []domain.Holding {
	var out []domain.Holding
	for _, it := range its {
		out = append(out, domain.Holding{Via: it.Via, Shares: it.Shares})
	}
	return out
}
