package decisions_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/ownership"
)

// registerParties is what a register listed for the entity: a partner
// with 600 shares who manages, another with 400, and a board member; all
// current.
func registerParties(e domain.Entity) []domain.Party {
	return []domain.Party{
		{ID: 11, Kind: domain.PartyPerson, Name: "Khalid Al-Harbi", Roles: []domain.PartyRole{domain.RoleOwner, domain.RoleManager},
			Shares: &domain.ShareCounts{Total: 600}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000011"},
			Source: domain.PartyFromRegister, Current: true},
		{ID: 12, Kind: domain.PartyPerson, Name: "Sara Al-Qahtani", Roles: []domain.PartyRole{domain.RoleOwner},
			Shares: &domain.ShareCounts{Total: 400}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000012"},
			Source: domain.PartyFromRegister, Current: true},
	}
}

// withParties gives the entity the register's parties and the owners they
// make, each screened clear.
func withParties(parties func(domain.Entity) []domain.Party) func(*domain.EntityDetail) {
	return func(d *domain.EntityDetail) {
		d.Entity.Parties = parties(d.Entity)
		d.Entity.Ownership = checks.OwnershipOf(d.Entity.RegistrationNumber, d.Entity.LegalName, d.Entity.Parties, t0, 0)
		for _, p := range d.Entity.Parties {
			sc := partyScreening("")
			sc.SubjectID, sc.SubjectDisplayName = new(p.ID), new(p.Name)
			sc.Result = map[string]any{"status": "clear", "matches": []any{}, "matches_count": 0}
			d.Checks = append(d.Checks, sc)
		}
	}
}

// TestOperatorsRecordParties: record_party, applied as every decision is,
// adds a party the merchant declared, corrects one, ends one, and records
// control; each time the beneficial owners are determined again from the
// parties, and the audit record shows the parties and the owners before
// and after. A declared party the register contradicts is a discrepancy
// the approval waits on, named; a correction resolves it. A new party is
// unscreened until the checks run again. What no state could make legal is
// refused before anything is read.
func TestOperatorsRecordParties(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, approvable, withParties(registerParties))
	cfg := domain.DefaultCountryConfig(w.account, "SA", 682, t0)
	seq := 0
	record := func(set func(*decisions.Request)) (domain.Entity, error) {
		t.Helper()
		seq++
		req := w.req(domain.ActionRecordParty, r.ID, w.decider)
		req.ActionID, req.Reason = fmt.Sprintf("record-party-%d", seq), "merchant_declared: the shareholder register of 2026-11"
		set(&req)
		if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
			return domain.Entity{}, err
		}
		ent, err := w.st.Entity(ctx, w.account, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		return ent, nil
	}
	blockers := func(ent domain.Entity) []decisions.Blocker {
		return decisions.ApproveBlockers(ent, mustChecks(t, w, ent), cfg)
	}
	kinds := func(bs []decisions.Blocker) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Kind)
		}
		return strings.Join(out, ",")
	}
	if bs := blockers(e); len(bs) != 0 {
		t.Fatalf("the entity as made is not approvable: %v", bs)
	}

	// The merchant declares Sara with 500 shares: the register says 400.
	ent, err := record(func(q *decisions.Request) {
		q.PartyOp, q.PartyKind, q.PartyName, q.PartyRoles, q.PartyShares = domain.PartyOpAdd, "person", new("Sara Al Qahtani"), new("owner"), new(int64(500))
		q.PartyIDType, q.PartyIDNumber, q.PartySource = new(domain.IdentityNationalID), new("1000000012"), string(domain.PartyDeclared)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ent.Parties) != 3 || ent.RelationshipsCount != 3 || ent.Parties[2].ID == 0 || ent.Parties[2].Source != domain.PartyDeclared {
		t.Fatalf("after the declaration: %d parties (count %d): %+v", len(ent.Parties), ent.RelationshipsCount, ent.Parties)
	}
	declared := ent.Parties[2].ID
	bs := blockers(ent)
	if kinds(bs) != decisions.BlockPartyUnscreened+","+decisions.BlockPartyDiscrepancy || !strings.Contains(bs[1].Text, "shares: declared 500, the register 400") {
		t.Errorf("blockers after a contradicted declaration: %v", bs)
	}
	// The declaration does not count in the shares while the register's
	// stands: 60 % and 40 % as before.
	if got := ownersOf(ent); got != "Khalid Al-Harbi ownership 60.00 %; Sara Al-Qahtani ownership 40.00 %" {
		t.Errorf("owners after a declaration: %s", got)
	}
	trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
	last := trail[len(trail)-1]
	if last.Action != domain.ActionRecordParty || !strings.Contains(fmt.Sprint(last.After["parties"]), "Sara Al Qahtani") ||
		strings.Contains(fmt.Sprint(last.Before["parties"]), "Sara Al Qahtani") || last.After["party_op"] != "add" {
		t.Errorf("the record of the declaration: before %v after %v", last.Before, last.After)
	}

	// Corrected to the register's count: the discrepancy is resolved.
	if ent, err = record(func(q *decisions.Request) {
		q.PartyOp, q.PartyID, q.PartyShares, q.PartyName = domain.PartyOpCorrect, declared, new(int64(400)), new("Sara Al-Qahtani")
	}); err != nil {
		t.Fatal(err)
	}
	if k := kinds(blockers(ent)); k != decisions.BlockPartyUnscreened {
		t.Errorf("blockers after the correction: %s, want the new party's screening only", k)
	}

	// Every party ends: no owner, no manager, nothing determined.
	for _, id := range []int64{11, 12, declared} {
		if ent, err = record(func(q *decisions.Request) { q.PartyOp, q.PartyID = domain.PartyOpEnd, id }); err != nil {
			t.Fatal(err)
		}
	}
	if ent.RelationshipsCount != 0 || ent.Ownership == nil || ent.Ownership.Determined {
		t.Errorf("every party ended: count %d, ownership %+v", ent.RelationshipsCount, ent.Ownership)
	}
	if !strings.Contains(kinds(blockers(ent)), decisions.BlockOwnersUndetermined) {
		t.Errorf("no owner left, no blocker: %v", blockers(ent))
	}
	// An operator finds a manager (no shares): a senior managing official.
	if ent, err = record(func(q *decisions.Request) {
		q.PartyOp, q.PartyKind, q.PartyName, q.PartyRoles, q.PartySource = domain.PartyOpAdd, "person", new("Omar Al-Dossary"), new("manager"), string(domain.PartyFoundByOp)
	}); err != nil {
		t.Fatal(err)
	}
	if got := ownersOf(ent); got != "Omar Al-Dossary "+ownership.BasisSeniorManagingOfficial+" " {
		t.Errorf("owners with a manager alone: %q", got)
	}
	// And one who controls by other means: control comes before the
	// managers, with the reason kept on the party.
	if ent, err = record(func(q *decisions.Request) {
		q.PartyOp, q.PartyKind, q.PartyName, q.PartyRoles, q.PartySource = domain.PartyOpAdd, "person", new("Faisal Al-Mutairi"), new("authorised_signatory"), string(domain.PartyFoundByOp)
		q.PartyControls = new(true)
	}); err != nil {
		t.Fatal(err)
	}
	if got := ownersOf(ent); got != "Faisal Al-Mutairi "+ownership.BasisControl+" " || ent.Parties[len(ent.Parties)-1].ControlNote == "" {
		t.Errorf("owners with a controller: %q (%+v)", got, ent.Parties[len(ent.Parties)-1])
	}

	// Every party change is in the entity's hash chain, which verifies: the
	// declaration, its correction and each end, the parties before and
	// after in the hashed bytes (the owners where they changed).
	ch, err := w.st.AuditChain(ctx, w.account, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, l := range ch.Records {
		if l.Action == string(domain.ActionRecordParty) && strings.Contains(l.After, "parties") && strings.Contains(l.Before, "parties") {
			recorded++
		}
	}
	owners := 0
	for _, l := range ch.Records {
		if strings.Contains(l.After, "beneficial_owners") {
			owners++
		}
	}
	if b := ch.Verify(); b != nil || recorded != seq || owners < 3 {
		t.Errorf("the chain: %v; %d record_party records with parties (want %d), %d with the owners changed", b, recorded, seq, owners)
	}

	// Refused before anything is read, or by the records, writing nothing.
	for _, tt := range []struct {
		name string
		set  func(*decisions.Request)
		code string
	}{
		{"no op", func(q *decisions.Request) {}, domain.ECodeInvalid},
		{"add without a name", func(q *decisions.Request) {
			q.PartyOp, q.PartyKind, q.PartyRoles, q.PartySource = "add", "person", new("owner"), "declared"
		}, domain.ECodeBadRequest},
		{"a role that is none", func(q *decisions.Request) {
			q.PartyOp, q.PartyKind, q.PartyName, q.PartyRoles, q.PartySource = "add", "person", new("X"), new("owner, treasurer"), "declared"
		}, domain.ECodeInvalid},
		{"a source the register's", func(q *decisions.Request) {
			q.PartyOp, q.PartyKind, q.PartyName, q.PartyRoles, q.PartySource = "add", "person", new("X"), new("owner"), "register"
		}, domain.ECodeInvalid},
		{"a nationality not a code", func(q *decisions.Request) { q.PartyOp, q.PartyID, q.PartyNationality = "correct", 11, new("Saudi") }, domain.ECodeInvalid},
		{"a nationality no country has", func(q *decisions.Request) { q.PartyOp, q.PartyID, q.PartyNationality = "correct", 11, new("XX") }, domain.ECodeInvalid},
		{"a birth date no calendar has", func(q *decisions.Request) { q.PartyOp, q.PartyID, q.PartyBirthDate = "correct", 11, new("1980-13-40") }, domain.ECodeInvalid},
		{"end with facts", func(q *decisions.Request) { q.PartyOp, q.PartyID, q.PartyName = "end", 11, new("X") }, domain.ECodeBadRequest},
		{"a party the entity has not", func(q *decisions.Request) { q.PartyOp, q.PartyID = "end", 999 }, domain.ECodeNotFound},
		{"a party already ended", func(q *decisions.Request) { q.PartyOp, q.PartyID = "end", 11 }, domain.ECodeConflict},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := w.st.Entity(ctx, w.account, e.ID)
			_, err := record(tt.set)
			if domain.ErrorCode(err) != tt.code {
				t.Errorf("%v, want code %s", err, tt.code)
			}
			after, _ := w.st.Entity(ctx, w.account, e.ID)
			if after.Version != before.Version {
				t.Errorf("a refused record_party wrote the entity")
			}
		})
	}
}

// ownersOf is the beneficial owners in words: name, basis, percent.
func ownersOf(e domain.Entity) string {
	if e.Ownership == nil {
		return "unknown"
	}
	var out []string
	for _, b := range e.Ownership.Owners {
		out = append(out, b.Name+" "+b.Basis+" "+b.Percent)
	}
	return strings.Join(out, "; ")
}
