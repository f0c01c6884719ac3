package domain

import (
	"slices"
	"time"
)

// The people and companies behind an entity: its parties.

// PartyKind is what a party is.
type PartyKind string

const (
	PartyPerson  PartyKind = "person"
	PartyCompany PartyKind = "company"
)

// PartyRole is a part a party plays in the entity.
type PartyRole string

const (
	// RoleOwner owns a share of the entity: an owner or a partner.
	RoleOwner       PartyRole = "owner"
	RoleManager     PartyRole = "manager"
	RoleBoardMember PartyRole = "board_member"
	RoleChair       PartyRole = "chair"
	RoleSignatory   PartyRole = "authorised_signatory"
)

// PartySource says where a party was learnt from.
type PartySource string

const (
	PartyFromRegister PartySource = "register"
	PartyDeclared     PartySource = "declared"
	PartyFoundByOp    PartySource = "operator"
)

// Identity document types of a party.
const (
	IdentityNationalID    = "national_id"
	IdentityIqama         = "iqama"
	IdentityPassport      = "passport"
	IdentityGCC           = "gcc_id"
	IdentityUnifiedNumber = "unified_number" // a Saudi company partner's 700 number
	IdentityForeignCR     = "foreign_cr"
)

// PartyIdentity is a party's identity document: its type (Identity…, or
// the register's own word when it is none of ours) and number.
type PartyIdentity struct {
	Type, Number string
}

// ShareCounts are a partner's shares as the register counts them (cash and
// in-kind contributions, and their total): the raw counts are kept, the
// percentage is derived (shared/ownership).
type ShareCounts struct {
	Cash, InKind, Total int64
}

// Party is a natural person or a company behind an entity.
type Party struct {
	ID, AccountID, EntityID int64
	Kind                    PartyKind
	// Name as the register writes it, an honorific taken off into Title
	// («السيد», "Dr.": a person's screening sends it as title).
	Name, Title string
	Roles       []PartyRole
	// RoleWords are the register's own words for the roles (its relation
	// or position names), kept as it gave them.
	RoleWords []string
	Shares    *ShareCounts
	Identity  PartyIdentity
	// Nationality is ISO 3166-1 alpha-2 where the register's lookup names
	// a country; NationalityRegister is the register's own value (id and
	// name) as it gave it.
	Nationality, NationalityRegister string
	// BirthDate is YYYY-MM-DD where the register gives a Gregorian date;
	// BirthDateRegister the register's value as it gave it (its legacy
	// API writes YYYY/MM/DD, possibly Hijri).
	BirthDate, BirthDateRegister string
	Source                       PartySource
	Current                      bool
	Since, Until                 *time.Time
	// Controls, with ControlNote the reason an operator recorded it for,
	// says the party controls the business by means other than its shares:
	// a beneficial owner on the basis of control when no one owns enough.
	Controls    bool
	ControlNote string
	// Via is, for an owner the entity's register does not list itself,
	// the chain of companies it holds its share through: their
	// registration numbers, the entity's company partner first.
	Via []string
	// AlsoHeld are the other ways an owner holds shares: through another
	// company partner (a person found again there), each with the chain
	// and the count of that company's shares.
	AlsoHeld []Holding
}

// Holding is a count of a company's shares held through a chain (Via:
// the company partners from the entity's down, the company held last).
type Holding struct {
	Via    []string
	Shares int64
}

// HasRole tells whether the party plays the role.
func (p Party) HasRole(r PartyRole) bool { return slices.Contains(p.Roles, r) }

// CurrentParties is the number of parties marked current: an entity's
// current_relationships_count.
func CurrentParties(ps []Party) int {
	n := 0
	for _, p := range ps {
		if p.Current {
			n++
		}
	}
	return n
}

// BeneficialOwner is a party found to be a beneficial owner, and why: its
// basis, and for ownership its stake and the chains of companies it holds
// it through (registration numbers from the entity down).
type BeneficialOwner struct {
	PartyID int64
	Name    string
	Basis   string   // ownership.BasisOwnership, BasisControl, BasisSeniorManagingOfficial
	Percent string   // "62.50 %" for ownership; "" otherwise
	Chains  []string // each "7001234567 > 7901234567 > 1012345678"
}

// Ownership is who the beneficial owners are, as last determined from the
// parties: Determined false when no one qualifies on any basis (approval
// waits); Unresolved the stakes held through companies whose owners are not
// known; Findings what the register's counts left unclear.
type Ownership struct {
	Owners      []BeneficialOwner
	Determined  bool
	Unresolved  []string
	Findings    []string
	ThresholdPc string // the threshold applied, "25 %"
	At          time.Time
}
