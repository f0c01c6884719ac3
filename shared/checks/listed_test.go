package checks

import (
	"reflect"
	"testing"
)

// TestListedParties: a kept screening answer's results by id, from either
// shape it is kept in, string properties only; anything else has none.
func TestListedParties(t *testing.T) {
	result := `{"id":"NK-1","caption":"Acme","schema":"Company","score":0.93,"datasets":["us_ofac_sdn"],"first_seen":"2023-01-01T00:00:00",
		"properties":{"name":["Acme"],"alias":["Acme Co",""],"address":["1 Main St"],"addressEntity":[{"id":"a1"}],"program":["SDGT"]}}`
	want := map[string]ListedParty{"NK-1": {ID: "NK-1", Caption: "Acme", Schema: "Company", Score: 0.93, Datasets: []string{"us_ofac_sdn"},
		FirstSeen:  "2023-01-01T00:00:00",
		Properties: map[string][]string{"name": {"Acme"}, "alias": {"Acme Co"}, "address": {"1 Main St"}, "program": {"SDGT"}}}}
	for _, tc := range []struct {
		name string
		body string
		want map[string]ListedParty
	}{
		{"yente's batch answer", `{"responses":{"q1":{"status":200,"results":[` + result + `]}},"limit":5}`, want},
		{"a screening webhook", `{"type":"screening.completed","data":{"reference":"q1","response":{"results":[` + result + `]}}}`, want},
		{"no results", `{"responses":{"q1":{"results":[]}}}`, map[string]ListedParty{}},
		{"a result without an id", `{"responses":{"q1":{"results":[{"caption":"x"}]}}}`, map[string]ListedParty{}},
		{"not JSON", `<html>`, nil},
		{"another provider's answer", `{"cr_info":{"cr_name":"x"}}`, map[string]ListedParty{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ListedParties([]byte(tc.body)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
