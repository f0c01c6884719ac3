package ownership

import (
	"math/big"
)

// Bases of a beneficial owner, in the law's order.
const (
	BasisOwnership              = "ownership"
	BasisControl                = "control"
	BasisSeniorManagingOfficial = "senior_managing_official"
)

// DefaultThreshold is the share from which a natural person is a
// beneficial owner by ownership: 25 %, compared with ">=". An account may
// set a lower one.
func DefaultThreshold() *big.Rat { return big.NewRat(25, 100) }

// Person is a natural person the file names, for control and management.
type Person struct{ Key, Name string }

// BeneficialOwner is one beneficial owner and why.
type BeneficialOwner struct {
	Key, Name string
	Basis     string
	// Stake and Chains are set for an owner by ownership.
	Stake  *big.Rat
	Chains [][]string
}

// Determination is who the beneficial owners are, in the law's order,
// with what was left undetermined.
type Determination struct {
	Owners []BeneficialOwner
	// Determined is false when no one qualifies on any basis (no owner at
	// the threshold, no recorded control, no manager): approval waits.
	Determined bool
	// Unresolved are company holders whose owners are not known: an
	// ownership basis below them cannot be ruled out.
	Unresolved []Stake
	Findings   []Finding
}

// BeneficialOwners determines the beneficial owners of the company root:
// every natural person whose stake (Stakes) is at least threshold (nil:
// DefaultThreshold()); failing any, the controllers (persons an operator
// recorded as controlling by other means, with its reason kept elsewhere);
// failing both, the senior managing officials (managers, board members,
// the chair).
func BeneficialOwners(root string, companies map[string]Company, maxDepth int, threshold *big.Rat, controllers, officials []Person) Determination {
	if threshold == nil {
		threshold = DefaultThreshold()
	}
	stakes, unresolved, findings := Stakes(root, companies, maxDepth)
	d := Determination{Unresolved: unresolved, Findings: findings}
	for _, s := range stakes {
		if s.Fraction.Cmp(threshold) >= 0 {
			d.Owners = append(d.Owners, BeneficialOwner{Key: s.Key, Name: s.Name, Basis: BasisOwnership, Stake: s.Fraction, Chains: s.Chains})
		}
	}
	if len(d.Owners) == 0 {
		for _, p := range controllers {
			d.Owners = append(d.Owners, BeneficialOwner{Key: p.Key, Name: p.Name, Basis: BasisControl})
		}
	}
	if len(d.Owners) == 0 {
		for _, p := range officials {
			d.Owners = append(d.Owners, BeneficialOwner{Key: p.Key, Name: p.Name, Basis: BasisSeniorManagingOfficial})
		}
	}
	d.Determined = len(d.Owners) > 0
	return d
}

// Percent is an owner by ownership's stake as a percentage ("" for the
// other bases).
func (o BeneficialOwner) Percent() string {
	if o.Stake == nil {
		return ""
	}
	return percent(o.Stake)
}

// PercentOf is a fraction as the package writes percentages ("25.00 %").
func PercentOf(f *big.Rat) string { return percent(f) }
