package dossier

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// checkResultCell is a check's result in the entity's Markdown: its keys
// in a stable order, then what changed since the previous check of its type
// and the evidence of the provider's answer, in words. Provider text is
// escaped (mdCell) by the caller.
func checkResultCell(m map[string]any) string {
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "changes" && k != "evidence" {
			rest[k] = v
		}
	}
	parts := []string{}
	if len(rest) > 0 {
		parts = append(parts, resultSummary(rest))
	}
	if ch, ok := plainNumbers(m["changes"]).(map[string]any); ok {
		parts = append(parts, "changes: "+changesText(ch))
	}
	if ev, ok := plainNumbers(m["evidence"]).(map[string]any); ok {
		parts = append(parts, fmt.Sprintf("evidence: %v HTTP %v, %v bytes, sha256 %v", ev["provider"], ev["http_status"], ev["size"], ev["sha256"]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

// changesText says what a re-check found different, field by field.
func changesText(ch map[string]any) string {
	var out []string
	for _, k := range []string{"registration_status", "legal_name", "expiry_date_hijri"} {
		if f, ok := ch[k].(map[string]any); ok {
			out = append(out, fmt.Sprintf("%s %q → %q", strings.ReplaceAll(k, "_", " "), f["from"], f["to"]))
		}
	}
	for _, k := range []string{"matches_added", "matches_removed", "matches_dismissed"} {
		ms, _ := ch[k].([]any)
		var ids []string
		for _, e := range ms {
			if m, ok := e.(map[string]any); ok {
				ids = append(ids, fmt.Sprintf("%v (%v)", m["id"], m["score"]))
			}
		}
		sort.Strings(ids)
		if len(ids) > 0 {
			out = append(out, strings.ReplaceAll(k, "_", " ")+" "+strings.Join(ids, ", "))
		}
	}
	if len(out) == 0 {
		out = append(out, "none")
	}
	return fmt.Sprintf("since check %v: %s", ch["previous_check_id"], strings.Join(out, ", "))
}

// plainNumbers returns v with every whole number read back as float64 (as
// a result is, from DynamoDB or JSON) made an int64, so that ids and sizes
// print as 1000000021, not 1.000000021e+09; maps and lists are copied.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainNumbers(e)
		}
		return out
	}
	return v
}
