package sim

import (
	"context"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestRegisterPartiesReadBack: the parties the simulator lists, in each
// generation's shape, read back through the service's Wathq client as they
// were listed — the current API's with the nationality mapped through its
// lookup; the legacy API's, which has no lookup, with the register's value.
func TestRegisterPartiesReadBack(t *testing.T) {
	srv := httptest.NewServer(&Simulator{WathqAPIKey: "k"})
	defer srv.Close()
	for _, id := range []string{"7001234560", "7001234440", "7001234540", "7901234560"} { // none; a partner and a holding; five partners; the holding
		for _, api := range []string{WathqCurrent, WathqV5} {
			t.Run(id+" "+api, func(t *testing.T) {
				w := &checks.Wathq{BaseURL: srv.URL, APIKey: "k", API: api, Clock: domain.SystemClock}
				rec, err := w.Lookup(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				want := RegisterParties(id)
				for i := range want {
					if api != WathqCurrent {
						want[i].NationalityRegister = "1 سعودي"
						want[i].Nationality = ""
						want[i].BirthDateRegister = strings.ReplaceAll(want[i].BirthDate, "-", "/") // as the legacy API writes it
						want[i].RoleWords = nil
						want[i].Shares = &domain.ShareCounts{Total: want[i].Shares.Total} // sharesCount alone
						for _, r := range want[i].Roles {
							want[i].RoleWords = append(want[i].RoleWords, map[domain.PartyRole]string{domain.RoleOwner: "شريك", domain.RoleManager: "مدير"}[r])
						}
					} else {
						if want[i].Nationality != "" {
							want[i].NationalityRegister = "1 سعودي"
						}
						want[i].BirthDate = "" // the current API gives none
						want[i].RoleWords = []string{"شريك"}
						if want[i].HasRole(domain.RoleManager) {
							want[i].RoleWords = append(want[i].RoleWords, "مدير")
						}
					}
					if want[i].Kind == domain.PartyCompany {
						want[i].NationalityRegister, want[i].BirthDate, want[i].BirthDateRegister = "", "", ""
					}
				}
				if !reflect.DeepEqual(rec.Parties, want) {
					t.Errorf("parties read back\n%+v\nlisted\n%+v", rec.Parties, want)
				}
			})
		}
	}
}
