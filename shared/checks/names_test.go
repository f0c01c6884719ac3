package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestSplitTitle(t *testing.T) {
	tests := []struct{ in, rest, title string }{
		{"السيد محمد علي الراشد", "محمد علي الراشد", "السيد"},
		{"صاحب السمو الأمير فيصل", "فيصل", "صاحب السمو الأمير"},
		{"د. خالد العمري", "خالد العمري", "د."},
		{"Dr. Sarah Ahmed", "Sarah Ahmed", "Dr."},
		{"H.E. Sheikh Omar Al Saud", "Omar Al Saud", "H.E. Sheikh"},
		{"Mr", "Mr", ""}, // nothing but an honorific: kept
		{"Drake Holdings", "Drake Holdings", ""},
		{"شركة المجد للزراعة", "شركة المجد للزراعة", ""},
	}
	for _, tt := range tests {
		rest, title := SplitTitle(tt.in)
		if rest != tt.rest || title != tt.title {
			t.Errorf("SplitTitle(%q) = %q, %q; want %q, %q", tt.in, rest, title, tt.rest, tt.title)
		}
	}
}

func TestScreeningNames(t *testing.T) {
	n := func(name string, src domain.NameSource) domain.EntityName {
		return domain.EntityName{Name: name, Source: src}
	}
	var seven []domain.EntityName
	for i := range 7 {
		seven = append(seven, n(fmt.Sprintf("Name %d", i), domain.NameDeclared))
	}
	tests := []struct {
		name      string
		in        []domain.EntityName
		sent      []string
		left      int
		firstFrom domain.NameSource
	}{
		{"spaces collapsed, the same letters once, the first source kept",
			[]domain.EntityName{n("  Al  Waha   Co. ", domain.NameRegisterLatin), n("AL-WAHA CO", domain.NameDeclared)}, []string{"Al Waha Co."}, 0, domain.NameRegisterLatin},
		{"an honorific comes off before names are compared",
			[]domain.EntityName{n("السيد محمد", domain.NameRegister), n("محمد", domain.NameDeclared)}, []string{"محمد"}, 0, domain.NameRegister},
		{"a name with no letter says nothing", []domain.EntityName{n(" - . ", domain.NameDeclared)}, nil, 0, ""},
		{"at most five are sent, the rest listed", seven, []string{"Name 0", "Name 1", "Name 2", "Name 3", "Name 4"}, 2, domain.NameDeclared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent, left := ScreeningNames(tt.in)
			if len(sent) != len(tt.sent) || len(left) != tt.left {
				t.Fatalf("sent %v, left %v", sent, left)
			}
			for i, s := range sent {
				if s.Name != tt.sent[i] {
					t.Errorf("sent[%d] = %q, want %q", i, s.Name, tt.sent[i])
				}
			}
			if len(sent) > 0 && sent[0].Source != tt.firstFrom {
				t.Errorf("first source = %s", sent[0].Source)
			}
		})
	}
	if sent, _ := ScreeningNames([]domain.EntityName{n("السيد محمد", domain.NameRegister)}); sent[0].Title != "السيد" {
		t.Errorf("title = %q", sent[0].Title)
	}
}

// TestTheQueryCarriesEveryNameAndIsRecorded: each name is a value of one
// query's name; a person's honorifics go as title (a company has none);
// the result keeps the query as sent.
func TestTheQueryCarriesEveryNameAndIsRecorded(t *testing.T) {
	tests := []struct {
		schema    string
		wantTitle bool
	}{{"Company", false}, {"Person", true}}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			var sent map[string]any
			srv := yenteServer(t, `[]`, func(_ *http.Request, body map[string]any) {
				sent = body["queries"].(map[string]any)["evs-1-2"].(map[string]any)
			})
			defer srv.Close()
			names, _ := ScreeningNames([]domain.EntityName{{Name: "السيد محمد الراشد", Source: domain.NameRegister}, {Name: "Mohammed Al-Rashid", Source: domain.NameDeclared}})
			res, err := (&Yente{BaseURL: srv.URL}).Screen(context.Background(), ScreeningQuery{Reference: "evs-1-2", Schema: tt.schema, Names: names})
			if err != nil {
				t.Fatal(err)
			}
			props := sent["properties"].(map[string]any)
			if got := fmt.Sprint(props["name"]); got != "[محمد الراشد Mohammed Al-Rashid]" || sent["schema"] != tt.schema {
				t.Errorf("query = %v", sent)
			}
			if _, has := props["title"]; has != tt.wantTitle {
				t.Errorf("title sent = %v, want %v", props["title"], tt.wantTitle)
			}
			recorded := Sanitize(domain.CheckOrganizationScreening, ScreeningResultMap(res))["query"].(map[string]any)
			if fmt.Sprint(recorded["properties"]) != fmt.Sprint(props) {
				t.Errorf("recorded %v, sent %v", recorded, sent)
			}
		})
	}
}

// TestWhichNameAMatchWasFoundOn reads yente 5.5's explanations as it sent
// them from the local engine (logic-v2).
func TestWhichNameAMatchWasFoundOn(t *testing.T) {
	tests := []struct {
		name, explanations, matched string
		identifierOnly              bool
	}{
		{"a name", `{"name_match": {"detail": "['desert' literalMatch: 1.00, weight 1.00]", "score": 0.94, "query": "Desert Falcon Trading", "candidate": "Desert Falcon Trading LLC"},
			"vessel_imo_mmsi_match": {"detail": "Not a vessel", "score": 0.0, "query": null, "candidate": null}}`, "Desert Falcon Trading", false},
		{"the number alone", `{"name_match": {"detail": "No name match found.", "score": 0.0, "query": null, "candidate": null},
			"lei_code_match": {"detail": "No identifier match", "score": 0.0, "query": null, "candidate": null}}`, "", true},
		{"no explanations (an older answer)", `{}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m ScreeningMatch
			if err := json.Unmarshal([]byte(`{"id":"x","score":0.85,"explanations":`+tt.explanations+`}`), &m); err != nil {
				t.Fatal(err)
			}
			if m.MatchedName() != tt.matched || m.IdentifierOnly() != tt.identifierOnly {
				t.Errorf("matched %q, identifier only %v", m.MatchedName(), m.IdentifierOnly())
			}
		})
	}
}
