package ownership

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func person(key string, count int64) Holder {
	return Holder{Key: key, Name: "Person " + key, Person: true, Count: count}
}
func company(key string, count int64) Holder {
	return Holder{Key: key, Name: "Company " + key, Count: count}
}

func TestSharesFromCounts(t *testing.T) {
	tests := []struct {
		name    string
		c       Company
		want    []string // holder key: percent
		finding string
	}{
		{"two partners", Company{Key: "R", Holders: []Holder{person("a", 600), person("b", 400)}}, []string{"a: 60.00 %", "b: 40.00 %"}, ""},
		{"the register's total agrees", Company{Key: "R", Total: 3, Holders: []Holder{person("a", 1), person("b", 2)}}, []string{"a: 33.33 %", "b: 66.67 %"}, ""},
		{"the register's total differs", Company{Key: "R", Total: 1000, Holders: []Holder{person("a", 600), person("b", 300)}}, nil, "add up to 900, the register's total is 1000"},
		{"no count at all", Company{Key: "R", Holders: []Holder{person("a", 0), person("b", 0)}}, nil, "no holder's shares are counted"},
		{"a negative count", Company{Key: "R", Holders: []Holder{person("a", 10), person("b", -1)}}, nil, "negative count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shares, err := Shares(tt.c)
			var f Finding
			if tt.finding != "" {
				if !errors.As(err, &f) || !strings.Contains(f.Text, tt.finding) || f.Company != "R" {
					t.Fatalf("finding %v, want one saying %q", err, tt.finding)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range shares {
				got = append(got, s.Key+": "+s.Percent())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("shares %v, want %v", got, tt.want)
			}
		})
	}
}

// stakes prints stakes as "key percent via chain | chain".
func stakes(ss []Stake) []string {
	var out []string
	for _, s := range ss {
		var chains []string
		for _, c := range s.Chains {
			chains = append(chains, strings.Join(c, ">"))
		}
		out = append(out, fmt.Sprintf("%s %s via %s", s.Key, s.Percent(), strings.Join(chains, " | ")))
	}
	return out
}

func TestStakesMultiplyAlongChainsAndAddAcross(t *testing.T) {
	// R: a 50 %, C 50 %; C: b 60 %, a 40 %; so a holds 50 % + 50 % × 40 %.
	tree := map[string]Company{
		"R": {Key: "R", Holders: []Holder{person("a", 50), company("C", 50)}},
		"C": {Key: "C", Holders: []Holder{person("b", 60), person("a", 40)}},
	}
	loop := map[string]Company{
		"R": {Key: "R", Holders: []Holder{person("a", 1), company("C", 1)}},
		"C": {Key: "C", Holders: []Holder{company("R", 1), person("b", 1)}},
	}
	bad := map[string]Company{
		"R": {Key: "R", Holders: []Holder{person("a", 1), company("C", 1)}},
		"C": {Key: "C", Total: 10, Holders: []Holder{person("b", 1)}},
	}
	tests := []struct {
		name             string
		tree             map[string]Company
		depth            int
		want, unresolved []string
		findings         int
	}{
		{"through a company partner", tree, 3, []string{"a 70.00 % via R>a | R>C>a", "b 30.00 % via R>C>b"}, nil, 0},
		{"the company partner deeper than allowed", tree, 0, []string{"a 50.00 % via R>a"}, []string{"C 50.00 % via R>C"}, 0},
		{"a loop is followed once along each chain", loop, 5, []string{"a 50.00 % via R>a", "b 25.00 % via R>C>b"}, []string{"R 25.00 % via R>C>R"}, 0},
		{"a company's counts that do not add up", bad, 3, []string{"a 50.00 % via R>a"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unresolved, findings := Stakes("R", tt.tree, tt.depth)
			if !reflect.DeepEqual(stakes(got), tt.want) || !reflect.DeepEqual(stakes(unresolved), tt.unresolved) || len(findings) != tt.findings {
				t.Errorf("stakes %q unresolved %q findings %v\nwant   %q unresolved %q, %d findings", stakes(got), stakes(unresolved), findings, tt.want, tt.unresolved, tt.findings)
			}
		})
	}
}

func TestBeneficialOwnersByTheLawsOrder(t *testing.T) {
	one := func(holders ...Holder) map[string]Company {
		return map[string]Company{"R": {Key: "R", Holders: holders}}
	}
	fifths := one(person("a", 1), person("b", 1), person("c", 1), person("d", 1), person("e", 1))
	managers := []Person{{"m", "Manager m"}}
	controller := []Person{{"x", "Controller x"}}
	tests := []struct {
		name        string
		tree        map[string]Company
		threshold   *big.Rat
		controllers []Person
		officials   []Person
		want        []string // key:basis
		determined  bool
	}{
		{"25 % exactly is an owner", one(person("a", 25), person("b", 75)), nil, nil, managers, []string{"b:ownership", "a:ownership"}, true},
		{"just under 25 % is not", one(person("a", 2499), person("b", 7501)), nil, nil, managers, []string{"b:ownership"}, true},
		{"indirect ownership counts", map[string]Company{
			"R": {Key: "R", Holders: []Holder{person("a", 20), company("C", 80)}},
			"C": {Key: "C", Holders: []Holder{person("a", 10), person("b", 90)}},
		}, nil, nil, managers, []string{"b:ownership", "a:ownership"}, true}, // a: 20 % + 8 %; b: 72 %
		{"a lower threshold the account set", fifths, big.NewRat(15, 100), nil, managers,
			[]string{"a:ownership", "b:ownership", "c:ownership", "d:ownership", "e:ownership"}, true},
		{"no owner at 25 %: the controllers", fifths, nil, controller, managers, []string{"x:control"}, true},
		{"no owner, no control: the senior managing officials", fifths, nil, nil, managers, []string{"m:senior_managing_official"}, true},
		{"nobody on any basis", fifths, nil, nil, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := BeneficialOwners("R", tt.tree, 3, tt.threshold, tt.controllers, tt.officials)
			var got []string
			for _, o := range d.Owners {
				got = append(got, o.Key+":"+o.Basis)
			}
			if !reflect.DeepEqual(got, tt.want) || d.Determined != tt.determined {
				t.Errorf("owners %v determined %v, want %v %v", got, d.Determined, tt.want, tt.determined)
			}
		})
	}
}
