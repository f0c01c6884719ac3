package checks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// The current API's fullinfo with the parties of providers.md: a partner
// who is also the manager (one party, both roles), a company partner (its
// crNumber set), and a chair known by a position id the lookup explains.
const wathqCurrentWithParties = `{"crNationalNumber":"7001234567","crNumber":"1010123456","name":"شركة النور للتجارة",
"status":{"id":1,"name":"نشط"},
"parties":[
 {"name":"السيد محمد علي","typeId":1,"typeName":"سعودي","identity":{"id":"1000000001","typeId":1,"typeName":"National_ID"},
  "partnership":[{"id":1,"name":"شريك"}],"partnerShare":{"cashContributionCount":600,"inKindContributionCount":0,"totalContributionCount":600},
  "nationality":{"id":"1","name":"سعودي"},"crNumber":null},
 {"name":"شركة الأفق القابضة","typeId":3,"typeName":"شركة","identity":{"id":"7009876543","typeId":5,"typeName":"CR_National_ID"},
  "partnership":[{"id":1,"name":"شريك"}],"partnerShare":{"cashContributionCount":300,"inKindContributionCount":100},
  "crNumber":"7009876543"}],
"management":{"structureId":2,"structureName":"مجلس مديرين","managers":[
 {"name":"محمد علي","identity":{"id":"1000000001","typeId":1,"typeName":"National_ID"},"nationality":{"id":"1","name":"سعودي"},"positions":[{"id":1,"name":"مدير"}]},
 {"name":"Dr. Omar Haddad","identity":{"id":"P1234567","typeId":3,"typeName":"Passport"},"nationality":{"id":"20","name":"أردني"},"positions":[{"id":7,"name":"رئيس"}]}]}}`

const wathqPositionsLookup = `[{"id":1,"nameAr":"مدير","nameEn":"Manager"},{"id":7,"nameAr":"رئيس","nameEn":"Chairman of the Board"}]`
const wathqNationalitiesLookup = `[{"id":1,"nameAr":"سعودي","nameEn":"Saudi Arabia"},{"id":20,"nameAr":"أردني","nameEn":"Jordan"}]`

// The legacy API's parties: one list, the role in relation.name, a partner
// who is also manager in two rows, a Hijri birth date.
const wathqLegacyWithParties = `{"crName":"شركة النور للتجارة","crEntityNumber":"7001234567","status":{"id":"active","name":"نشط","nameEn":"Active"},
"parties":[
 {"name":"محمد علي","birthDate":"1975/03/14","sharesCount":600,"gross":60000,"identity":{"id":"1000000001","type":"National_ID"},"relation":{"id":"2","name":"شريك"},"nationality":{"id":"SA","name":"سعودي"}},
 {"name":"محمد علي","birthDate":"1975/03/14","identity":{"id":"1000000001","type":"National_ID"},"relation":{"id":"5","name":"مدير"}},
 {"name":"سالم أحمد","birthDate":"1395/01/01","sharesCount":400,"identity":{"id":"2000000002","type":"Resident_ID"},"relation":{"id":"2","name":"Partner"}}]}`

func TestWathqReadsTheRegistersParties(t *testing.T) {
	owner, manager, chair := domain.RoleOwner, domain.RoleManager, domain.RoleChair
	tests := []struct {
		name, api, body string
		want            []domain.Party
	}{
		{"current API", WathqCurrent, wathqCurrentWithParties, []domain.Party{
			{Kind: domain.PartyPerson, Name: "محمد علي", Title: "السيد", Roles: []domain.PartyRole{owner, manager}, RoleWords: []string{"شريك", "مدير"},
				Shares: &domain.ShareCounts{Cash: 600, Total: 600}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000001"},
				Nationality: "SA", NationalityRegister: "1 سعودي", Source: domain.PartyFromRegister, Current: true},
			{Kind: domain.PartyCompany, Name: "شركة الأفق القابضة", Roles: []domain.PartyRole{owner}, RoleWords: []string{"شريك"},
				Shares: &domain.ShareCounts{Cash: 300, InKind: 100, Total: 400}, Identity: domain.PartyIdentity{Type: domain.IdentityUnifiedNumber, Number: "7009876543"},
				Source: domain.PartyFromRegister, Current: true},
			{Kind: domain.PartyPerson, Name: "Omar Haddad", Title: "Dr.", Roles: []domain.PartyRole{chair}, RoleWords: []string{"رئيس"},
				Identity: domain.PartyIdentity{Type: domain.IdentityPassport, Number: "P1234567"}, Nationality: "JO", NationalityRegister: "20 أردني",
				Source: domain.PartyFromRegister, Current: true},
		}},
		{"legacy API", WathqV5, wathqLegacyWithParties, []domain.Party{
			{Kind: domain.PartyPerson, Name: "محمد علي", Roles: []domain.PartyRole{owner, manager}, RoleWords: []string{"شريك", "مدير"},
				Shares: &domain.ShareCounts{Total: 600}, Identity: domain.PartyIdentity{Type: domain.IdentityNationalID, Number: "1000000001"},
				NationalityRegister: "SA سعودي", BirthDate: "1975-03-14", BirthDateRegister: "1975/03/14", Source: domain.PartyFromRegister, Current: true},
			{Kind: domain.PartyPerson, Name: "سالم أحمد", Roles: []domain.PartyRole{owner}, RoleWords: []string{"Partner"},
				Shares: &domain.ShareCounts{Total: 400}, Identity: domain.PartyIdentity{Type: domain.IdentityIqama, Number: "2000000002"},
				BirthDateRegister: "1395/01/01", Source: domain.PartyFromRegister, Current: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/lookup/status"):
					io.WriteString(w, wathqStatusLookup)
				case strings.HasSuffix(r.URL.Path, "/lookup/managerPositions"):
					io.WriteString(w, wathqPositionsLookup)
				case strings.HasSuffix(r.URL.Path, "/lookup/nationalities"):
					io.WriteString(w, wathqNationalitiesLookup)
				default:
					io.WriteString(w, tt.body)
				}
			}))
			defer srv.Close()
			w := &Wathq{BaseURL: srv.URL, API: tt.api, Clock: domain.SystemClock}
			rec, err := w.Lookup(context.Background(), "7001234567")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec.Parties, tt.want) {
				t.Errorf("parties\n%+v\nwant\n%+v", rec.Parties, tt.want)
			}
		})
	}
}

// TestWathqPartiesWithoutLookups: lookups that cannot be read leave the
// register's own values (nationality unmapped, the position read from its
// Arabic name); the register's answer stands.
func TestWathqPartiesWithoutLookups(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/lookup/status"):
			io.WriteString(w, wathqStatusLookup)
		case strings.Contains(r.URL.Path, "/lookup/"):
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			io.WriteString(w, wathqCurrentWithParties)
		}
	}))
	defer srv.Close()
	rec, err := (&Wathq{BaseURL: srv.URL, Clock: domain.SystemClock}).Lookup(context.Background(), "7001234567")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Parties) != 3 || rec.Parties[0].Nationality != "" || rec.Parties[0].NationalityRegister != "1 سعودي" ||
		!reflect.DeepEqual(rec.Parties[0].Roles, []domain.PartyRole{domain.RoleOwner, domain.RoleManager}) {
		t.Errorf("parties %+v", rec.Parties)
	}
}
