package main

import (
	"flag"
	"strconv"

	"github.com/evs-kyb/evs/shared/decisions"
)

// unset marks a string flag not given (an empty one is given empty).
const unset = "\x00"

// decidePartyFlags are record-party's flags: what is done to which party,
// and the facts given (a correction changes only those given).
type decidePartyFlags struct {
	op, kind, source                                                    *string
	id                                                                  *int64
	name, roles, shares, idType, idNumber, nationality, birth, controls *string
}

func partyFlags(fs *flag.FlagSet) decidePartyFlags {
	return decidePartyFlags{
		op:          fs.String("party-op", "", "record-party: add, correct or end"),
		id:          idFlag(fs, "party", "record-party: the party to correct or end"),
		kind:        fs.String("party-kind", "", "record-party: person or company"),
		name:        fs.String("party-name", unset, "record-party: the party's name"),
		roles:       fs.String("party-roles", unset, "record-party: owner, manager, board_member, chair, authorised_signatory (commas between)"),
		shares:      fs.String("party-shares", unset, "record-party: the count of shares held"),
		idType:      fs.String("party-identity-type", unset, "record-party: national_id, iqama, passport, gcc_id, unified_number or foreign_cr (with --party-identity-number)"),
		idNumber:    fs.String("party-identity-number", unset, "record-party: the identity document's number"),
		nationality: fs.String("party-nationality", unset, "record-party: ISO 3166-1 alpha-2 (SA)"),
		birth:       fs.String("party-birth-date", unset, "record-party: YYYY-MM-DD"),
		source:      fs.String("party-source", "", "record-party: declared (by the merchant) or operator (found by you)"),
		controls:    fs.String("party-controls", unset, "record-party: yes when the party controls the business by other means (the reason says how), no to clear"),
	}
}

// set puts the flags given in req; a malformed count or yes/no is a usage
// error naming the flag.
func (p decidePartyFlags) set(req *decisions.Request) error {
	opt := func(v *string) *string {
		if *v == unset {
			return nil
		}
		return v
	}
	req.PartyOp, req.PartyID, req.PartyKind, req.PartySource = *p.op, *p.id, *p.kind, *p.source
	req.PartyName, req.PartyRoles, req.PartyIDType, req.PartyIDNumber = opt(p.name), opt(p.roles), opt(p.idType), opt(p.idNumber)
	req.PartyNationality, req.PartyBirthDate = opt(p.nationality), opt(p.birth)
	if *p.shares != unset {
		n, err := strconv.ParseInt(*p.shares, 10, 64)
		if err != nil {
			return usageError{"decide: --party-shares must be a whole count of shares"}
		}
		req.PartyShares = &n
	}
	switch *p.controls {
	case unset:
	case "yes", "no":
		req.PartyControls = new(*p.controls == "yes")
	default:
		return usageError{"decide: --party-controls must be yes or no"}
	}
	return nil
}
