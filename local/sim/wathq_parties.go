package sim

import (
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// The register's parties as the simulator lists them, in each generation's
// shape (../shared/providers.md): the current API's parties[] (owners and
// partners, with partnerShare) and management.managers[] (with positions
// ids its managerPositions lookup explains), the legacy API's one parties[]
// list with a row per relation.

// managerPositions are the current API's managerPositions lookup rows, in
// our roles' order.
var managerPositionRoles = []struct {
	role   domain.PartyRole
	ar, en string
}{
	{domain.RoleManager, "مدير", "Manager"},
	{domain.RoleBoardMember, "عضو مجلس إدارة", "Board Member"},
	{domain.RoleChair, "رئيس مجلس الإدارة", "Chairman of the Board"},
	{domain.RoleSignatory, "مفوض بالتوقيع", "Authorized Signatory"},
}

// WathqPositionsLookup is GET …/lookup/managerPositions.
func WathqPositionsLookup() []map[string]any {
	var out []map[string]any
	for i, p := range managerPositionRoles {
		out = append(out, map[string]any{"id": i + 1, "nameAr": p.ar, "nameEn": p.en})
	}
	return out
}

// nationalities are the register's national codes (not ISO): its
// nationalities lookup explains them.
var nationalities = []struct{ iso, ar, en string }{
	{"SA", "سعودي", "Saudi Arabia"}, {"EG", "مصري", "Egypt"}, {"JO", "أردني", "Jordan"},
	{"AE", "إماراتي", "United Arab Emirates"}, {"YE", "يمني", "Yemen"}, {"IN", "هندي", "India"},
	{"PK", "باكستاني", "Pakistan"}, {"KW", "كويتي", "Kuwait"}, {"SY", "سوري", "Syria"},
}

// WathqNationalitiesLookup is GET …/lookup/nationalities.
func WathqNationalitiesLookup() []map[string]any {
	var out []map[string]any
	for i, n := range nationalities {
		out = append(out, map[string]any{"id": i + 1, "nameAr": n.ar, "nameEn": n.en})
	}
	return out
}

func nationalityOf(iso string) map[string]any {
	for i, n := range nationalities {
		if n.iso == iso {
			return map[string]any{"id": i + 1, "name": n.ar}
		}
	}
	return nil
}

// registerIdentityType is the register's name of our identity type.
func registerIdentityType(t string) string {
	switch t {
	case domain.IdentityNationalID:
		return "National_ID"
	case domain.IdentityIqama:
		return "Resident_ID"
	case domain.IdentityPassport:
		return "Passport"
	case domain.IdentityGCC:
		return "GCC_ID"
	case domain.IdentityUnifiedNumber:
		return "CR_National_ID"
	case domain.IdentityForeignCR:
		return "Foreign_CR_No"
	}
	return t
}

func partyName(p domain.Party) string { return strings.TrimSpace(p.Title + " " + p.Name) }

func identityOf(p domain.Party, withTypeID bool) map[string]any {
	id := map[string]any{"id": p.Identity.Number}
	if withTypeID {
		id["typeName"] = registerIdentityType(p.Identity.Type)
		id["typeId"] = 1
	} else {
		id["type"] = registerIdentityType(p.Identity.Type)
	}
	return id
}

// currentParties are the current API's parties[] and managers[].
func currentParties(ps []domain.Party) (owners, managers []any) {
	owners, managers = []any{}, []any{}
	for _, p := range ps {
		if p.HasRole(domain.RoleOwner) {
			row := map[string]any{"name": partyName(p), "typeId": 1, "typeName": "سعودي", "identity": identityOf(p, true),
				"partnership": []any{map[string]any{"id": 1, "name": "شريك"}}, "nationality": nationalityOf(p.Nationality), "crNumber": nil}
			if p.Kind == domain.PartyCompany {
				row["typeId"], row["typeName"], row["crNumber"] = 3, "شركة", p.Identity.Number
			}
			if s := p.Shares; s != nil {
				row["partnerShare"] = map[string]any{"cashContributionCount": s.Cash, "inKindContributionCount": s.InKind, "totalContributionCount": s.Total}
			}
			owners = append(owners, row)
		}
		var positions []any
		for i, pr := range managerPositionRoles {
			if p.HasRole(pr.role) {
				positions = append(positions, map[string]any{"id": i + 1, "name": pr.ar})
			}
		}
		if len(positions) > 0 {
			managers = append(managers, map[string]any{"name": partyName(p), "typeId": 1, "typeName": "سعودي", "isLicensed": true,
				"identity": identityOf(p, true), "nationality": nationalityOf(p.Nationality), "positions": positions})
		}
	}
	return owners, managers
}

// legacyParties are the legacy API's parties[]: a row per relation.
func legacyParties(ps []domain.Party) []any {
	out := []any{}
	for _, p := range ps {
		for _, r := range p.Roles {
			word := map[domain.PartyRole]string{domain.RoleOwner: "شريك", domain.RoleManager: "مدير", domain.RoleBoardMember: "عضو مجلس إدارة",
				domain.RoleChair: "رئيس مجلس الإدارة", domain.RoleSignatory: "مفوض بالتوقيع"}[r]
			row := map[string]any{"name": partyName(p), "birthDate": strings.ReplaceAll(p.BirthDate, "-", "/"), "identity": identityOf(p, false),
				"relation": map[string]any{"id": string(r), "name": word}, "nationality": nationalityOf(p.Nationality)}
			if r == domain.RoleOwner && p.Shares != nil {
				row["sharesCount"] = p.Shares.Total
			}
			out = append(out, row)
		}
	}
	return out
}

// RegisterParties are the parties the simulated register lists for a
// number it answers by its digits. Most numbers list none (as sandbox
// records often do); where the number's tens digit is 4: a Saudi partner
// holding 60 % who is also the manager, and a holding company holding 40 %
// (a unified number beginning 79, which the register answers with two
// people as its own partners, 70 % and 30 %); when the last digit is 8
// too, the partner is a listed person of the screening engine's dataset
// (تركي منصور الدوسري, born 1977-01-19), found by name and birth date;
// when the hundreds digit is 5, five people hold 20 % each instead.
func RegisterParties(id string) []domain.Party {
	person := func(name, title, number, nationality, birth string, shares int64, roles ...domain.PartyRole) domain.Party {
		return domain.Party{Kind: domain.PartyPerson, Name: name, Title: title, Roles: roles,
			Shares: &domain.ShareCounts{Cash: shares, Total: shares}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: number},
			Nationality: nationality, BirthDate: birth, Source: domain.PartyFromRegister, Current: true}
	}
	if strings.HasPrefix(id, "79") {
		return []domain.Party{
			person("سالم عبدالرحمن القحطاني", "", "1"+tail(id, 9), "SA", "1968-04-02", 700, domain.RoleOwner, domain.RoleManager),
			person("نورة خالد العتيبي", "", "2"+tail(id, 9), "SA", "1979-11-23", 300, domain.RoleOwner),
		}
	}
	holding := domain.Party{Kind: domain.PartyCompany, Name: HoldingName, Roles: []domain.PartyRole{domain.RoleOwner},
		Shares: &domain.ShareCounts{Cash: 400, Total: 400}, Identity: domain.PartyIdentity{Type: domain.IdentityUnifiedNumber, Number: "79" + tail(id, 8)},
		Source: domain.PartyFromRegister, Current: true}
	if tail(id, 2)[0] != '4' {
		return nil
	}
	if tail(id, 3)[0] == '5' {
		// Five partners, 20 % each, the first managing: the bench's
		// merchant with five parties and no company among them.
		var five []domain.Party
		for i, name := range []string{"فهد ناصر الشمري", "ريم عبدالعزيز السبيعي", "ماجد سعد الغامدي", "هيا فيصل الزهراني", "بندر علي العنزي"} {
			roles := []domain.PartyRole{domain.RoleOwner}
			if i == 0 {
				roles = append(roles, domain.RoleManager)
			}
			five = append(five, person(name, "", fmt.Sprintf("%d%s", i+1, tail(id, 9)), "SA", fmt.Sprintf("19%d-0%d-1%d", 70+i, i+1, i), 200, roles...))
		}
		return five
	}
	partner := person("عبدالله محمد الحربي", "السيد", "1"+tail(id, 9), "SA", "1971-06-30", 600, domain.RoleOwner, domain.RoleManager)
	if strings.HasSuffix(id, "8") {
		partner = person("تركي منصور الدوسري", "", "1"+tail(id, 9), "SA", "1977-01-19", 600, domain.RoleOwner, domain.RoleManager)
	}
	return []domain.Party{partner, holding}
}

// tail is the last n digits of id, left-padded with zeros.
func tail(id string, n int) string {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
	if len(digits) >= n {
		return digits[len(digits)-n:]
	}
	return strings.Repeat("0", n-len(digits)) + digits
}
