package decisions

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

// record_party: an operator adds a party (declared by the merchant, or
// found by the operator), corrects one, or ends one; the beneficial owners
// are determined again from the parties as they then are
// (checks.OwnershipOf), and the audit record's before and after show both.

// discrepancies are the declared parties the register contradicts.
func discrepancies(ps []domain.Party) []checks.Discrepancy { return checks.Discrepancies(ps) }

var (
	alpha2      = regexp.MustCompile(`^[A-Z]{2}$`)
	partyRoles  = []domain.PartyRole{domain.RoleOwner, domain.RoleManager, domain.RoleBoardMember, domain.RoleChair, domain.RoleSignatory}
	identityFor = []string{domain.IdentityNationalID, domain.IdentityIqama, domain.IdentityPassport, domain.IdentityGCC,
		domain.IdentityUnifiedNumber, domain.IdentityForeignCR}
)

// checkParty checks record_party's fields before anything is read.
func checkParty(req Request) error {
	switch req.PartyOp {
	case domain.PartyOpAdd:
		if req.PartyID != 0 {
			return domain.Invalid(domain.FieldPartyID, "is not taken by add: the party gets an id of its own")
		}
		if req.PartyKind == "" || req.PartyName == nil || strings.TrimSpace(*req.PartyName) == "" || req.PartyRoles == nil || req.PartySource == "" {
			return domain.Errorf(domain.ECodeBadRequest, "record_party add needs party_kind, party_name, party_roles and party_source")
		}
	case domain.PartyOpCorrect:
		if req.PartyID <= 0 {
			return domain.Invalid(domain.FieldPartyID, "is required: correct names the party it corrects")
		}
		if req.PartyKind == "" && req.PartyName == nil && req.PartyRoles == nil && req.PartyShares == nil && req.PartyIDType == nil &&
			req.PartyIDNumber == nil && req.PartyNationality == nil && req.PartyBirthDate == nil && req.PartySource == "" && req.PartyControls == nil {
			return domain.Errorf(domain.ECodeBadRequest, "record_party correct needs at least one of the party's fields")
		}
	case domain.PartyOpEnd:
		if req.PartyID <= 0 {
			return domain.Invalid(domain.FieldPartyID, "is required: end names the party it ends")
		}
		if len(fieldValues(req)) != 2 {
			return domain.Errorf(domain.ECodeBadRequest, "record_party end takes party_op and party_id only")
		}
		return nil
	default:
		return domain.Invalid(domain.FieldPartyOp, "must be one of add, correct, end")
	}
	if k := req.PartyKind; k != "" && k != string(domain.PartyPerson) && k != string(domain.PartyCompany) {
		return domain.Invalid(domain.FieldPartyKind, "must be person or company")
	}
	if req.PartyName != nil {
		if err := freetext.Check(domain.FieldPartyName, *req.PartyName, freetext.Description, true); err != nil {
			return err
		}
	}
	if req.PartyRoles != nil {
		if _, err := parseRoles(*req.PartyRoles); err != nil {
			return err
		}
	}
	if req.PartyShares != nil && *req.PartyShares < 0 {
		return domain.Invalid(domain.FieldPartyShares, "must be a count of shares, 0 or more")
	}
	if (req.PartyIDType == nil) != (req.PartyIDNumber == nil) {
		return domain.Errorf(domain.ECodeBadRequest, "party_identity_type and party_identity_number go together")
	}
	if req.PartyIDType != nil && *req.PartyIDType != "" && !slices.Contains(identityFor, *req.PartyIDType) {
		return domain.Invalid(domain.FieldPartyIDType, fmt.Sprintf("must be one of %s", strings.Join(identityFor, ", ")))
	}
	if req.PartyIDNumber != nil {
		if err := freetext.Check(domain.FieldPartyIDNumber, *req.PartyIDNumber, freetext.Token, false); err != nil {
			return err
		}
	}
	if req.PartyNationality != nil && *req.PartyNationality != "" && !alpha2.MatchString(*req.PartyNationality) {
		return domain.Invalid(domain.FieldPartyNationality, "must be an ISO 3166-1 alpha-2 code in capitals (SA)")
	}
	if req.PartyBirthDate != nil && *req.PartyBirthDate != "" {
		if _, err := time.Parse(time.DateOnly, *req.PartyBirthDate); err != nil {
			return domain.Invalid(domain.FieldPartyBirthDate, "must be a date, YYYY-MM-DD")
		}
	}
	if s := req.PartySource; s != "" && s != string(domain.PartyDeclared) && s != string(domain.PartyFoundByOp) {
		return domain.Invalid(domain.FieldPartySource, "must be declared (by the merchant) or operator (found by an operator)")
	}
	return nil
}

// parseRoles reads party_roles: roles separated by commas.
func parseRoles(s string) ([]domain.PartyRole, error) {
	var out []domain.PartyRole
	for _, w := range strings.Split(s, ",") {
		r := domain.PartyRole(strings.TrimSpace(w))
		if !slices.Contains(partyRoles, r) {
			return nil, domain.Invalid(domain.FieldPartyRoles, fmt.Sprintf("%q is not a role; use owner, manager, board_member, chair or authorised_signatory, separated by commas", w))
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// recordParty applies record_party to the entity's parties and determines
// the beneficial owners again. Codes: validation_failed for a nationality
// no country of the catalogue has; not_found for a party_id the entity
// has no party of; conflict for a party already ended.
func (s *Service) recordParty(ctx context.Context, req Request, c *change, thresholdPc int) error {
	if n := domain.Deref(req.PartyNationality); n != "" {
		if _, ok := s.countries().ByAlpha2(n); !ok {
			return domain.Invalid(domain.FieldPartyNationality, fmt.Sprintf("%s is no country's ISO 3166-1 alpha-2 code", n))
		}
	}
	parties := slices.Clone(c.ent.Parties)
	at := -1
	if req.PartyOp != domain.PartyOpAdd {
		for i, p := range parties {
			if p.ID == req.PartyID {
				at = i
			}
		}
		if at < 0 {
			return domain.Errorf(domain.ECodeNotFound, "entity %d has no party %d", c.ent.ID, req.PartyID)
		}
		if !parties[at].Current {
			return domain.Errorf(domain.ECodeConflict, "party %d of entity %d has ended: add it again instead", req.PartyID, c.ent.ID)
		}
	}
	switch req.PartyOp {
	case domain.PartyOpAdd:
		ids, err := s.Store.ReservePartyIDs(ctx, req.AccountID, 1)
		if err != nil {
			return fmt.Errorf("record_party: reserve a party id: %w", err)
		}
		p := domain.Party{ID: ids[0], AccountID: req.AccountID, EntityID: c.ent.ID, Current: true, Since: &c.now}
		setParty(&p, req)
		parties = append(parties, p)
		c.after["added_party_id"] = p.ID // not party_id: the signed document binds that key to what was asked
	case domain.PartyOpCorrect:
		setParty(&parties[at], req)
	case domain.PartyOpEnd:
		parties[at].Current, parties[at].Until = false, &c.now
	}
	c.ent.Parties = parties
	c.ent.Ownership = checks.OwnershipOf(c.ent.RegistrationNumber, c.ent.LegalName, parties, c.now, thresholdPc)
	c.entityChanged = true
	return nil
}

// setParty sets the fields the request gives; a correction keeps the rest.
func setParty(p *domain.Party, req Request) {
	if req.PartyKind != "" {
		p.Kind = domain.PartyKind(req.PartyKind)
	}
	if req.PartyName != nil {
		p.Name = strings.TrimSpace(*req.PartyName)
	}
	if req.PartyRoles != nil {
		p.Roles, _ = parseRoles(*req.PartyRoles)
		p.RoleWords = nil
	}
	if req.PartyShares != nil {
		p.Shares = &domain.ShareCounts{Total: *req.PartyShares}
	}
	if req.PartyIDType != nil {
		p.Identity = domain.PartyIdentity{Type: *req.PartyIDType, Number: domain.Deref(req.PartyIDNumber)}
	}
	if req.PartyNationality != nil {
		p.Nationality, p.NationalityRegister = *req.PartyNationality, ""
	}
	if req.PartyBirthDate != nil {
		p.BirthDate, p.BirthDateRegister = *req.PartyBirthDate, ""
	}
	if req.PartySource != "" {
		p.Source = domain.PartySource(req.PartySource)
	}
	if req.PartyControls != nil {
		p.Controls, p.ControlNote = *req.PartyControls, ""
		if *req.PartyControls {
			p.ControlNote = req.Reason
		}
	}
}
