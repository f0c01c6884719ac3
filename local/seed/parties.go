package seed

import (
	"fmt"
	"math/rand/v2"

	"github.com/evs-kyb/evs/shared/domain"
)

// demoParties are n people behind a demo business, as the register lists
// them: each an owner with a count of shares, the first its manager too;
// names drawn from partyNames without repeating.
func demoParties(r *rand.Rand, n int) []domain.Party {
	names := append([]string(nil), partyNames...)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var out []domain.Party
	for i := range min(n, len(names)) {
		p := domain.Party{Kind: domain.PartyPerson, Name: names[i], Roles: []domain.PartyRole{domain.RoleOwner},
			Shares:      &domain.ShareCounts{Cash: int64(10 * (1 + r.IntN(60)))},
			Identity:    domain.PartyIdentity{Type: domain.IdentityNationalID, Number: fmt.Sprintf("1%09d", r.IntN(1_000_000_000))},
			Nationality: saCode, Source: domain.PartyFromRegister, Current: true}
		p.Shares.Total = p.Shares.Cash
		if i == 0 {
			p.Roles = append(p.Roles, domain.RoleManager)
		}
		out = append(out, p)
	}
	return out
}
