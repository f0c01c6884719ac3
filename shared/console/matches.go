package console

import (
	"slices"

	"github.com/evs-kyb/evs/shared/domain"
)

// matchRow is one screening match: one row of the review page's table,
// with its adjudication form.
type matchRow struct {
	ID, Name, Schema, Score string
	Lists                   []string
	// Dismissed: an operator judged it a false positive before;
	// Confirmed: a true positive.
	Dismissed, Confirmed bool
	Form                 *actionForm
}

// latestScreening is the entity's newest completed screening check: the
// one whose matches an adjudication names (decisions reads the same).
func latestScreening(cs []domain.Check) (domain.Check, bool) {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, newestFirst)
	for _, c := range cs {
		if c.Type == domain.CheckOrganizationScreening && c.Status == domain.CheckCompleted {
			return c, true
		}
	}
	return domain.Check{}, false
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
		row.Name, _ = mm["caption"].(string)
		row.Schema, _ = mm["schema"].(string)
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
