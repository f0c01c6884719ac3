package checks

import (
	"fmt"
	"slices"
	"sort"

	"github.com/evs-kyb/evs/shared/domain"
)

// changedFields are the fields of a registry lookup whose change a
// re-check records.
func changedFields() []string {
	return []string{"registration_status", "legal_name", "expiry_date_hijri"}
}

// Changes is what a re-check found different from prev, the previous
// completed check of its type for the entity: for a registry lookup each of
// registration status, legal name and expiry that differs ({"from", "to"},
// a missing value being ""); for a screening the matches added and removed
// (their ids and scores). A match of prev that an operator dismissed (a false
// positive, in dismissed) is left out of the re-screen on purpose, so its
// absence is listed apart, as matches_dismissed, not as removed by the
// provider. previous_check_id names prev, so an empty set of changes says
// "checked against prev: nothing changed". Nil when next did not complete or
// the types differ.
func Changes(prev, next domain.Check, dismissed []string) map[string]any {
	if next.Status != domain.CheckCompleted || prev.Type != next.Type {
		return nil
	}
	out := map[string]any{"previous_check_id": prev.ID}
	switch next.Type {
	case domain.CheckRegistryLookup:
		for _, k := range changedFields() {
			from, to := text(prev.Result[k]), text(next.Result[k])
			if from != to {
				out[k] = map[string]any{"from": from, "to": to}
			}
		}
	case domain.CheckOrganizationScreening:
		before, after := matchScores(prev.Result["matches"]), matchScores(next.Result["matches"])
		out["matches_added"] = missingFrom(after, before)
		gone := missingFrom(before, after)
		var removed, excluded []any
		for _, m := range gone {
			if slices.Contains(dismissed, m.(map[string]any)["id"].(string)) {
				excluded = append(excluded, m)
			} else {
				removed = append(removed, m)
			}
		}
		out["matches_removed"] = append([]any{}, removed...)
		if len(excluded) > 0 {
			out["matches_dismissed"] = excluded
		}
	default:
		return nil
	}
	return out
}

// WithChanges returns c with its result's changes against the previous
// completed check of its type among earlier (PreviousOf, Changes), the
// result copied and sanitised; c as it is when there is none to compare
// with. A re-check (queue_checks) and a provider's later answer both record
// what changed this way.
func WithChanges(c domain.Check, earlier []domain.Check, dismissed []string) domain.Check {
	prev, ok := PreviousOf(c, earlier)
	if !ok {
		return c
	}
	ch := Changes(prev, c, dismissed)
	if ch == nil {
		return c
	}
	r := make(map[string]any, len(c.Result)+1)
	for k, v := range c.Result {
		r[k] = v
	}
	r["changes"] = ch
	c.Result = Sanitize(c.Type, r)
	return c
}

// PreviousOf is the newest completed check of c's type and subject among
// earlier, other than c itself (the highest id: ids grow in the order
// checks are made).
func PreviousOf(c domain.Check, earlier []domain.Check) (domain.Check, bool) {
	var prev domain.Check
	found := false
	for _, e := range earlier {
		if e.Type != c.Type || !sameSubject(e, c) || e.Status != domain.CheckCompleted || e.ID == c.ID || (c.ID != 0 && e.ID > c.ID) {
			continue
		}
		if !found || e.ID > prev.ID {
			prev, found = e, true
		}
	}
	return prev, found
}

// sameSubject tells checks about the same subject: the entity, or the
// same party.
func sameSubject(a, b domain.Check) bool {
	if a.SubjectID == nil || b.SubjectID == nil {
		return a.SubjectID == nil && b.SubjectID == nil
	}
	return *a.SubjectID == *b.SubjectID
}

func text(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// matchScores reads a result's matches: id → score.
func matchScores(v any) map[string]any {
	out := map[string]any{}
	var list []map[string]any
	switch ms := v.(type) {
	case []any:
		for _, e := range ms {
			if m, ok := e.(map[string]any); ok {
				list = append(list, m)
			}
		}
	case []map[string]any:
		list = ms
	}
	for _, m := range list {
		if id := text(m["id"]); id != "" {
			out[id] = m["score"]
		}
	}
	return out
}

// missingFrom lists, by id, the matches of a that b lacks.
func missingFrom(a, b map[string]any) []any {
	ids := make([]string, 0, len(a))
	for id := range a {
		if _, ok := b[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, map[string]any{"id": id, "score": a[id]})
	}
	return out
}
