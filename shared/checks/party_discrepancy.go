package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// Discrepancy is where a party the merchant declared and the register
// disagree: the declared party, and what differs in words.
type Discrepancy struct {
	PartyID int64
	Name    string
	Text    string
}

// Discrepancies compares each current declared party with the register's
// current parties of the same company (the entity's, or the company it is
// held through): matched by identity number, else by name, a different
// name, share count or role is a discrepancy; a declared party the register
// does not list, where it lists parties of that company, is one too. An
// operator resolves one with record_party — correcting the party (to agree,
// or taking the declaration as an operator's finding) or ending it — with
// the reason kept in the trail; until then an approval waits.
func Discrepancies(ps []domain.Party) []Discrepancy {
	var out []Discrepancy
	for _, d := range ps {
		if !d.Current || d.Source != domain.PartyDeclared {
			continue
		}
		var register []domain.Party
		for _, p := range ps {
			if p.Current && p.Source == domain.PartyFromRegister && lastLink(p.Via) == lastLink(d.Via) {
				register = append(register, p)
			}
		}
		if len(register) == 0 {
			continue // nothing of the register's to contradict it
		}
		r, ok := registerCounterpart(d, register)
		if !ok {
			out = append(out, Discrepancy{d.ID, d.Name, "the register does not list " + d.Name})
			continue
		}
		var diffs []string
		if nameKey(r.Name) != nameKey(d.Name) {
			diffs = append(diffs, fmt.Sprintf("name: declared %q, the register %q", d.Name, r.Name))
		}
		if ds, rs := sharesOf(d), sharesOf(r); ds != rs {
			diffs = append(diffs, fmt.Sprintf("shares: declared %d, the register %d", ds, rs))
		}
		if dr, rr := roleList(d), roleList(r); dr != rr {
			diffs = append(diffs, fmt.Sprintf("roles: declared %s, the register %s", dr, rr))
		}
		if len(diffs) > 0 {
			out = append(out, Discrepancy{d.ID, d.Name, strings.Join(diffs, "; ")})
		}
	}
	return out
}

// registerCounterpart is the register's party the declared one speaks of:
// the same identity number, else the same name.
func registerCounterpart(d domain.Party, register []domain.Party) (domain.Party, bool) {
	if d.Identity.Number != "" {
		for _, r := range register {
			if r.Identity.Number == d.Identity.Number {
				return r, true
			}
		}
	}
	for _, r := range register {
		if nameKey(r.Name) == nameKey(d.Name) {
			return r, true
		}
	}
	return domain.Party{}, false
}

func sharesOf(p domain.Party) int64 {
	if p.Shares == nil {
		return 0
	}
	return p.Shares.Total
}

func roleList(p domain.Party) string {
	rs := make([]string, len(p.Roles))
	for i, r := range p.Roles {
		rs[i] = string(r)
	}
	slices.Sort(rs)
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(rs, ", ")
}
