package console

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// checkRow is a check as the review page lists it.
type checkRow struct {
	ID       int64
	Type     domain.CheckType
	Provider string
	Status   domain.CheckStatus
	Reason   string
	Result   string // its plain values, "key: value" joined
	Evidence string // the provider's answer's SHA-256, "" when none kept
	// Raw is the result as recorded, indented JSON: the provider's answer
	// as the check kept it, one click away on the page.
	Raw       string
	CheckedAt *time.Time
}

// checkRows are the checks newest first.
func checkRows(cs []domain.Check) []checkRow {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, newestFirst)
	out := make([]checkRow, 0, len(cs))
	for _, c := range cs {
		out = append(out, checkRow{ID: c.ID, Type: c.Type, Provider: c.ProviderKey, Status: c.Status, Reason: c.TriggeringReason,
			Result: resultSummary(c.Result), Evidence: evidenceHash(c.Result), Raw: rawResult(c.Result), CheckedAt: c.CheckedAt})
	}
	return out
}

func newestFirst(a, b domain.Check) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return int(b.ID - a.ID)
}

// resultSummary is a result's plain values (the matches, the evidence and
// the changes have places of their own).
func resultSummary(r map[string]any) string {
	var parts []string
	for k, v := range r {
		switch v.(type) {
		case string, bool, float64, int, int64:
			parts = append(parts, label(k)+": "+plain(v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// evidenceHash is the SHA-256 of the provider's answer the result records.
func evidenceHash(r map[string]any) string {
	ev, _ := r["evidence"].(map[string]any)
	sum, _ := ev["sha256"].(string)
	return sum
}

// plain is a result's value as text; whole numbers without an exponent.
func plain(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// rawResult is a result as indented JSON; "" for none.
func rawResult(r map[string]any) string {
	if len(r) == 0 {
		return ""
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}
