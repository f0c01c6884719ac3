package dossier

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
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
		parts = append(parts, pairsText(rest))
	}
	if ch, ok := m["changes"].(map[string]any); ok {
		parts = append(parts, "changes: "+changesText(ch))
	}
	if ev, ok := m["evidence"].(map[string]any); ok {
		parts = append(parts, fmt.Sprintf("evidence: %s HTTP %s, %s bytes, sha256 %s",
			readable(ev["provider"]), readable(ev["http_status"]), readable(ev["size"]), readable(ev["sha256"])))
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
			out = append(out, fmt.Sprintf("%s %s → %s", strings.ReplaceAll(k, "_", " "), quoted(f["from"]), quoted(f["to"])))
		}
	}
	for _, k := range []string{"matches_added", "matches_removed", "matches_dismissed"} {
		ms, _ := ch[k].([]any)
		var ids []string
		for _, e := range ms {
			if m, ok := e.(map[string]any); ok {
				ids = append(ids, fmt.Sprintf("%s (%s)", readable(m["id"]), readable(m["score"])))
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
	return fmt.Sprintf("since check %s: %s", readable(ch["previous_check_id"]), strings.Join(out, ", "))
}

// place is where a value sits in what readable writes: a map or list
// inside another is bracketed, so a reader sees where it ends.
type place int

const (
	alone  place = iota // the whole of what is written
	inMap               // the value of a key
	inList              // an item of a list
)

// nameKeys are the keys, in order, that name what a map describes (a
// screening match's caption): such a map reads as its name first.
var nameKeys = []string{"caption", "name"}

// readable is a value of a check's result as a person reads it, never in
// Go's syntax ("map[…]", "[a b]"): text as is, numbers plainly (a whole
// number read back as float64 without an exponent), lists comma-separated
// ("none" when empty), maps as "key: value" pairs in key order, and a map
// that names something as its name with its other fields, score first,
// in brackets: "Smith Holdings (score 0.91; datasets us_ofac_sdn, eu_fsf;
// id NK-1)". The text is plain; the caller escapes it (mdCell).
func readable(v any) string { return readableAt(v, alone) }

func readableAt(v any, at place) string {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return "—"
	case reflect.String:
		return cmp.Or(rv.String(), "—")
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'f', -1, rv.Type().Bits())
	case reflect.Pointer:
		if rv.IsNil() {
			return "—"
		}
		return readableAt(rv.Elem().Interface(), at)
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			return "none"
		}
		items := make([]string, rv.Len())
		for i := range items {
			items[i] = readableAt(rv.Index(i).Interface(), inList)
		}
		return bracket(strings.Join(items, ", "), at == inList)
	case reflect.Map:
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[fmt.Sprint(it.Key().Interface())] = it.Value().Interface()
		}
		return mapText(m, at)
	case reflect.Struct:
		// Results are JSON-shaped as read back; a struct still in memory
		// reads as its JSON would (a time as its timestamp).
		if b, err := json.Marshal(v); err == nil {
			var j any
			if json.Unmarshal(b, &j) == nil {
				return readableAt(j, at)
			}
		}
	}
	return fmt.Sprint(v)
}

func mapText(m map[string]any, at place) string {
	if len(m) == 0 {
		return "none"
	}
	for _, nk := range nameKeys {
		name, ok := m[nk].(string)
		if !ok || strings.TrimSpace(name) == "" {
			continue
		}
		var details []string
		for _, k := range slices.SortedFunc(maps.Keys(m), scoreFirst) {
			if k != nk {
				details = append(details, k+" "+readableAt(m[k], inMap))
			}
		}
		if len(details) == 0 {
			return name
		}
		return name + " (" + strings.Join(details, "; ") + ")"
	}
	return bracket(pairsText(m), at != alone)
}

// pairsText is a map's "key: value" pairs in key order, whatever its keys.
func pairsText(m map[string]any) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+readableAt(m[k], inMap))
	}
	return strings.Join(parts, ", ")
}

// scoreFirst orders a named thing's fields: its score, what a reader
// weighs first, then the rest by key.
func scoreFirst(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "score":
		return -1
	case b == "score":
		return 1
	}
	return strings.Compare(a, b)
}

func bracket(s string, needed bool) string {
	if needed {
		return "(" + s + ")"
	}
	return s
}

// quoted is a changed field's value: text in quotes, so an empty or padded
// name shows as such.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return readable(v)
}
