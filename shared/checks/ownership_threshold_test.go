package checks

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestTheAccountsThresholdNamesTheOwners: the same parties, determined at
// the law's 25 % and at an account's lower threshold, name different
// owners, and the determination records the threshold it applied; a
// threshold above the law's is never applied (it would leave out owners
// the law names).
func TestTheAccountsThresholdNamesTheOwners(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	owner := func(id int64, name string, shares int64, roles ...domain.PartyRole) domain.Party {
		return domain.Party{ID: id, Kind: domain.PartyPerson, Name: name, Roles: append([]domain.PartyRole{domain.RoleOwner}, roles...),
			Shares: &domain.ShareCounts{Cash: shares, Total: shares}, Source: domain.PartyFromRegister, Current: true,
			Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: fmt.Sprintf("10000000%02d", id)}}
	}
	manager := domain.Party{ID: 9, Kind: domain.PartyPerson, Name: "Sara Manager", Roles: []domain.PartyRole{domain.RoleManager},
		Source: domain.PartyFromRegister, Current: true}
	// 60 + 20 + 20 of 100 shares.
	spread := []domain.Party{owner(1, "Ali Major", 60), owner(2, "Badr Minor", 20), owner(3, "Carla Minor", 20), manager}
	// 24 × 4 + 4: no one at 25 %.
	even := []domain.Party{owner(1, "Ali", 24), owner(2, "Badr", 24), owner(3, "Carla", 24), owner(4, "Dana", 24), owner(5, "Eid", 4), manager}
	tests := []struct {
		name        string
		parties     []domain.Party
		thresholdPc int
		wantOwners  []string
		wantBasis   string
		wantApplied string
	}{
		{"the law's 25 %: the majority partner alone", spread, 0, []string{"Ali Major"}, "ownership", "25.00 %"},
		{"25 set as such is the law's", spread, 25, []string{"Ali Major"}, "ownership", "25.00 %"},
		{"an account at 20 %: the two 20 % partners too", spread, 20, []string{"Ali Major", "Badr Minor", "Carla Minor"}, "ownership", "20.00 %"},
		{"no one at 25 %: the manager as senior managing official", even, 0, []string{"Sara Manager"}, "senior_managing_official", "25.00 %"},
		{"the same register at 10 %: four owners by ownership", even, 10, []string{"Ali", "Badr", "Carla", "Dana"}, "ownership", "10.00 %"},
		{"a threshold above the law's is not applied", spread, 40, []string{"Ali Major"}, "ownership", "25.00 %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := OwnershipOf("7001234567", "Acme Trading", tt.parties, at, tt.thresholdPc)
			var names []string
			for _, b := range o.Owners {
				names = append(names, b.Name)
				if b.Basis != tt.wantBasis {
					t.Errorf("%s: basis %s, want %s", b.Name, b.Basis, tt.wantBasis)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.wantOwners) || !o.Determined {
				t.Errorf("owners %v (determined %v), want %v", names, o.Determined, tt.wantOwners)
			}
			if o.ThresholdPc != tt.wantApplied {
				t.Errorf("threshold applied %q, want %q", o.ThresholdPc, tt.wantApplied)
			}
		})
	}
}
