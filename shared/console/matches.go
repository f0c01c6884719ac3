package console

import (
	"slices"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// matchRow is one screening match: one row of the review page's table,
// with its adjudication form.
type matchRow struct {
	ID, Name, Schema, Score string
	// Class is what the match is by its topics (checks.MatchClasses);
	// ClassText says it in words, with "through ownership or control" for
	// a sanctions match that is one.
	Class, ClassText string
	// MatchedName is which of the names screened it was found on;
	// IdentifierOnly: on none, the registration number alone.
	MatchedName    string
	IdentifierOnly bool
	Lists          []string
	// Dismissed: an operator judged it a false positive before;
	// Confirmed: a true positive.
	Dismissed, Confirmed bool
	// Party names the party whose screening found the match ("" for the
	// entity's own).
	Party string
	Form  *actionForm
	// Compare sets the listed party beside the entity, field by field,
	// from the provider's kept answer (none when it is not kept or does
	// not verify: the page says why).
	Compare []compareRow
}

// latestCompleted is the entity's newest completed check of a type.
// entityChecks are the checks about the entity itself (not one of its
// parties).
func entityChecks(cs []domain.Check) []domain.Check {
	var out []domain.Check
	for _, c := range cs {
		if c.SubjectType == nil {
			out = append(out, c)
		}
	}
	return out
}

func latestCompleted(cs []domain.Check, t domain.CheckType) (domain.Check, bool) {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, newestFirst)
	for _, c := range cs {
		if c.Type == t && c.Status == domain.CheckCompleted {
			return c, true
		}
	}
	return domain.Check{}, false
}

// subjectScreenings are the entity's own newest completed screening and
// each party's: the ones whose matches an adjudication names (decisions
// reads the same).
func subjectScreenings(cs []domain.Check) (entity domain.Check, hasEntity bool, parties []domain.Check) {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, newestFirst)
	seen := map[int64]bool{}
	for _, c := range cs {
		if c.Type != domain.CheckOrganizationScreening || c.Status != domain.CheckCompleted {
			continue
		}
		if c.SubjectID == nil {
			if !hasEntity {
				entity, hasEntity = c, true
			}
			continue
		}
		if !seen[*c.SubjectID] {
			seen[*c.SubjectID] = true
			parties = append(parties, c)
		}
	}
	return entity, hasEntity, parties
}

// matchRows reads a screening result's matches, one row each; anything
// that is not a match with an id is left out.
func matchRows(c domain.Check, e domain.Entity) []matchRow {
	ms, _ := c.Result["matches"].([]any)
	var out []matchRow
	for _, m := range ms {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		id, _ := mm["id"].(string)
		if id == "" {
			continue
		}
		row := matchRow{ID: id, Dismissed: slices.Contains(e.DismissedMatches, id), Confirmed: slices.Contains(e.ConfirmedMatches, id)}
		row.Class, row.ClassText = matchClassOf(mm)
		row.Name, _ = mm["caption"].(string)
		row.Schema, _ = mm["schema"].(string)
		row.MatchedName, _ = mm["matched_name"].(string)
		row.IdentifierOnly, _ = mm["identifier_only"].(bool)
		if s, ok := mm["score"]; ok {
			row.Score = plain(s)
		}
		lists, _ := mm["datasets"].([]any)
		for _, l := range lists {
			if s, ok := l.(string); ok {
				row.Lists = append(row.Lists, s)
			}
		}
		out = append(out, row)
	}
	return out
}

// matchClassOf is a kept match's class and its words; a match kept before
// classes were is read as a sanctions match, as the decisions read it.
func matchClassOf(m map[string]any) (class, text string) {
	class, _ = m["class"].(string)
	switch class {
	case checks.ClassPEP:
		return class, "Politically exposed person (PEP)"
	case checks.ClassOtherRisk:
		return class, "Other risk (not a sanction)"
	}
	if control, _ := m["by_control"].(bool); control {
		return checks.ClassSanction, "Sanctions, through ownership or control"
	}
	return checks.ClassSanction, "Sanctions"
}

// withComparisons sets each row's listed party beside the entity, from
// the screening's kept answer, when it verifies; note says otherwise why
// the rows have none.
func (h *handler) withComparisons(c *webpage.Call, d domain.EntityDetail, sc domain.Check, rows []matchRow) (note string, err error) {
	if len(rows) == 0 {
		return "", nil
	}
	view, err := h.answer(c, sc)
	switch {
	case err != nil:
		return "", err
	case !view.Kept:
		return "The provider’s answer is not kept, so the matches cannot be shown field by field: " + view.NotKept, nil
	case !view.Verified:
		return "The provider’s kept answer does not hash to what the check recorded, so its details are not shown here: open the answer to see why.", nil
	}
	var register map[string]any
	if rc, ok := latestCompleted(entityChecks(d.Checks), domain.CheckRegistryLookup); ok {
		register = rc.Result
	}
	parties := checks.ListedParties(view.Evidence.Body)
	for i := range rows {
		if p, ok := parties[rows[i].ID]; ok {
			rows[i].Compare = comparison(d.Entity, register, p)
		}
	}
	return "", nil
}

// screenedName is one name a screening sent, as the review page lists it.
type screenedName struct {
	Name, Source, Title string
}

// screenedNames are the names a screening's result says it sent, and why
// the set was partial ("" when it was not). A screening kept before names
// were recorded lists none.
func screenedNames(c domain.Check) ([]screenedName, string) {
	var out []screenedName
	ns, _ := c.Result["names_screened"].([]any)
	for _, n := range ns {
		m, ok := n.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		src, _ := m["source"].(string)
		title, _ := m["title"].(string)
		out = append(out, screenedName{Name: name, Source: domain.NameSourceWords(domain.NameSource(src)), Title: title})
	}
	partial := ""
	if p, _ := c.Result["names_partial"].(bool); p {
		partial, _ = c.Result["names_partial_reason"].(string)
		if partial == "" {
			partial = "the register's names were not screened"
		}
	}
	return out, partial
}
