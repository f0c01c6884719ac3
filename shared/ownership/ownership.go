// Package ownership computes who owns a business, directly and through
// other companies, and who its beneficial owners are by the law's order
// (../shared/providers.md, "Beneficial owners: the thresholds"): natural
// persons owning at least the threshold (25 % unless an account sets a
// lower one), shares multiplied along each chain of companies and added
// across chains (EU AMLR Art. 51–52; the Saudi Ministry of Commerce's
// rules); failing any, the persons recorded as controlling by other means;
// failing both, the senior managing officials (managers, board, chair).
//
// The register gives share counts, never percentages: a holder's share of
// a company is its count over the company's total, kept as an exact
// fraction (math/big.Rat) so that 25 % is 25 %, compared with ">=".
package ownership

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Holder is one holder of a company's shares: a natural person, or a
// company (whose own holders may be known, under Key).
type Holder struct {
	// Key identifies the holder across the tree: a person's identity
	// (type and number) or a company's unified number.
	Key    string
	Name   string
	Person bool
	// Count is the holder's raw share count as the register gives it
	// (a partner's total contribution count); Count < 0 is refused.
	Count int64
}

// Company is a company whose holders are known.
type Company struct {
	Key     string
	Name    string
	Holders []Holder
	// Total is the company's share count where the register gives one
	// (its capital's sharesCount); 0 when it gives none, and the holders'
	// sum is the total.
	Total int64
}

// Finding is a fact about the holdings that cannot be turned into shares
// without guessing: a check records it rather than a percentage.
type Finding struct {
	Company string // the company's key
	Text    string
}

func (f Finding) Error() string { return fmt.Sprintf("company %s: %s", f.Company, f.Text) }

// Share is a holder's direct share of a company.
type Share struct {
	Holder
	Fraction *big.Rat
}

// Percent is the share as a percentage, to two places, for people.
func (s Share) Percent() string { return percent(s.Fraction) }

// Shares are the direct shares of c's holders. A company with no share
// counted, a negative count, or holders whose counts do not add up to the
// register's total is a Finding.
func Shares(c Company) ([]Share, error) {
	var sum int64
	for _, h := range c.Holders {
		if h.Count < 0 {
			return nil, Finding{c.Key, fmt.Sprintf("%s holds a negative count of shares (%d)", h.Name, h.Count)}
		}
		sum += h.Count
	}
	switch {
	case sum == 0:
		return nil, Finding{c.Key, "no holder's shares are counted: the shares cannot be derived"}
	case c.Total != 0 && c.Total != sum:
		return nil, Finding{c.Key, fmt.Sprintf("the holders' shares add up to %d, the register's total is %d", sum, c.Total)}
	}
	out := make([]Share, len(c.Holders))
	for i, h := range c.Holders {
		out[i] = Share{Holder: h, Fraction: big.NewRat(h.Count, sum)}
	}
	return out, nil
}

// Stake is what a natural person owns of the root company in all: the sum
// over the chains through which they hold it of the product of the shares
// along each chain.
type Stake struct {
	Key, Name string
	Fraction  *big.Rat
	// Chains are the ways the stake is held, each from the root company
	// down to the person (company keys, then the person's key).
	Chains [][]string
}

// Percent is the stake as a percentage, to two places.
func (s Stake) Percent() string { return percent(s.Fraction) }

// Stakes are the natural persons' stakes in the company root, following
// company holders known in companies down to maxDepth levels below root. A
// company holder whose holders are unknown (not looked up, or deeper than
// maxDepth) is listed in unresolved with the fraction it holds: its owners
// cannot be told. A company that holds itself through a loop is followed
// once along each chain. Findings of any company on the way are returned
// with the stakes that could be computed.
func Stakes(root string, companies map[string]Company, maxDepth int) (stakes []Stake, unresolved []Stake, findings []Finding) {
	byKey := map[string]*Stake{}
	unresolvedBy := map[string]*Stake{}
	add := func(into map[string]*Stake, h Holder, f *big.Rat, chain []string) {
		s, ok := into[h.Key]
		if !ok {
			s = &Stake{Key: h.Key, Name: h.Name, Fraction: new(big.Rat)}
			into[h.Key] = s
		}
		s.Fraction.Add(s.Fraction, f)
		s.Chains = append(s.Chains, slices.Clone(chain))
	}
	var walk func(key string, f *big.Rat, chain []string, depth int)
	walk = func(key string, f *big.Rat, chain []string, depth int) {
		c := companies[key]
		shares, err := Shares(c)
		if err != nil {
			if fd, ok := err.(Finding); ok {
				findings = append(findings, fd)
			}
			return
		}
		for _, s := range shares {
			through := new(big.Rat).Mul(f, s.Fraction)
			next := append(slices.Clone(chain), s.Key)
			_, known := companies[s.Key]
			switch {
			case s.Person:
				add(byKey, s.Holder, through, next)
			case known && depth < maxDepth && !slices.Contains(chain, s.Key):
				walk(s.Key, through, next, depth+1)
			default:
				add(unresolvedBy, s.Holder, through, next)
			}
		}
	}
	walk(root, big.NewRat(1, 1), []string{root}, 0)
	return sorted(byKey), sorted(unresolvedBy), findings
}

// sorted lists stakes largest first, then by key.
func sorted(m map[string]*Stake) []Stake {
	out := make([]Stake, 0, len(m))
	for _, s := range m {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Stake) int {
		if c := b.Fraction.Cmp(a.Fraction); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

func percent(f *big.Rat) string {
	return new(big.Rat).Mul(f, big.NewRat(100, 1)).FloatString(2) + " %"
}
