package checks

import "github.com/evs-kyb/evs/shared/domain"

// resultKeys is the allow-list of result keys of a check type. Whatever else
// a result map holds (a provider's raw answer, a credential, an internal
// reference) never reaches storage or the API. Keys may be added; consumers
// tolerate new ones (contract 9.4).
func resultKeys(t domain.CheckType) []string {
	switch t {
	case domain.CheckRegistryLookup:
		return []string{"status", "registration_status", "legal_name", "cr_number", "unified_number", "expiry_date_hijri", "error"}
	case domain.CheckOrganizationScreening:
		return []string{"status", "matched", "matches_count", "top_score", "threshold", "algorithm", "dataset", "matches", "error"}
	}
	return nil
}

// matchKeys is the allow-list inside each element of a screening's matches.
func matchKeys() []string { return []string{"id", "caption", "schema", "score", "datasets"} }

// Sanitize keeps only the allow-listed keys of a result.
func Sanitize(t domain.CheckType, result map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range resultKeys(t) {
		v, ok := result[k]
		if !ok {
			continue
		}
		if k == "matches" {
			v = sanitizeMatches(v)
		}
		out[k] = v
	}
	return out
}

func sanitizeMatches(v any) any {
	var out []any
	switch ms := v.(type) {
	case []map[string]any:
		for _, m := range ms {
			out = append(out, pick(m, matchKeys()))
		}
	case []any:
		for _, e := range ms {
			if m, ok := e.(map[string]any); ok {
				out = append(out, pick(m, matchKeys()))
			}
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func pick(m map[string]any, keys []string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
