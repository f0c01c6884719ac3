package checks

import "github.com/evs-kyb/evs/shared/domain"

// resultKeys is the allow-list of result keys of a check type. Whatever else
// a result map holds (a provider's raw answer, a credential, an internal
// reference) never reaches storage or the API. Keys may be added; consumers
// tolerate new ones (contract 9.4).
func resultKeys(t domain.CheckType) []string {
	switch t {
	case domain.CheckRegistryLookup:
		return []string{"status", "registration_status", "legal_name", "cr_number", "unified_number", "expiry_date_hijri",
			"legal_name_en", "issue_date", "city", "legal_form", "activities", "parties_count", "error", "evidence", "changes"}
	case domain.CheckOrganizationScreening:
		return []string{"status", "matched", "matches_count", "top_score", "threshold", "algorithm", "dataset", "matches",
			"names_screened", "names_not_sent", "names_partial", "names_partial_reason", "query", "error", "evidence", "changes"}
	}
	return nil
}

// matchKeys is the allow-list inside each element of a screening's matches.
func matchKeys() []string {
	return []string{"id", "caption", "schema", "score", "datasets", "class", "topics", "by_control", "matched_name", "identifier_only"}
}

// Sanitize keeps only the allow-listed keys of a result.
func Sanitize(t domain.CheckType, result map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range resultKeys(t) {
		v, ok := result[k]
		if !ok {
			continue
		}
		switch k {
		case "matches":
			v = sanitizeMatches(v)
		case "evidence":
			v = sanitizeEvidence(v)
		case "changes":
			v = sanitizeChanges(v)
		}
		if v == nil {
			continue
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

// evidenceKeys is the allow-list of a result's evidence (provenance of the
// answer): never the body, never a header.
func evidenceKeys() []string {
	return []string{"provider", "request", "received_at", "http_status", "sha256", "size", "stored", "stored_reason"}
}

func sanitizeEvidence(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := pick(m, evidenceKeys())
	if req, ok := out["request"].(map[string]any); ok {
		out["request"] = pick(req, []string{"method", "url"})
	} else {
		delete(out, "request")
	}
	return out
}

// changeKeys is the allow-list of a result's changes (what a re-check found
// different from the previous check of its type).
func changeKeys() []string {
	return []string{"previous_check_id", "registration_status", "legal_name", "expiry_date_hijri", "matches_added", "matches_removed", "matches_dismissed"}
}

func sanitizeChanges(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := pick(m, changeKeys())
	for _, k := range []string{"registration_status", "legal_name", "expiry_date_hijri"} {
		if f, ok := out[k].(map[string]any); ok {
			out[k] = pick(f, []string{"from", "to"})
		} else {
			delete(out, k)
		}
	}
	for _, k := range []string{"matches_added", "matches_removed", "matches_dismissed"} {
		if _, ok := out[k]; ok {
			var ms []any
			switch l := out[k].(type) {
			case []any:
				ms = l
			case []map[string]any:
				for _, e := range l {
					ms = append(ms, e)
				}
			}
			kept := []any{}
			for _, e := range ms {
				if mm, ok := e.(map[string]any); ok {
					kept = append(kept, pick(mm, []string{"id", "score"}))
				}
			}
			out[k] = kept
		}
	}
	return out
}
