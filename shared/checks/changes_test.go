package checks

import (
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func registry(id int64, status domain.CheckStatus, result map[string]any) domain.Check {
	return domain.Check{ID: id, Type: domain.CheckRegistryLookup, Status: status, Result: result}
}

func screening(id int64, matches ...map[string]any) domain.Check {
	ms := []any{}
	for _, m := range matches {
		ms = append(ms, m)
	}
	return domain.Check{ID: id, Type: domain.CheckOrganizationScreening, Status: domain.CheckCompleted, Result: map[string]any{"matches": ms}}
}

func TestChanges(t *testing.T) {
	base := map[string]any{"registration_status": "valid", "legal_name": "Al Noor Trading", "expiry_date_hijri": "1450/01/01"}
	with := func(k, v string) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	fromTo := func(from, to string) map[string]any { return map[string]any{"from": from, "to": to} }
	tests := []struct {
		name       string
		prev, next domain.Check
		want       map[string]any
	}{
		{"nothing changed", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckCompleted, base),
			map[string]any{"previous_check_id": int64(1)}},
		{"registration status", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckCompleted, with("registration_status", "expired")),
			map[string]any{"previous_check_id": int64(1), "registration_status": fromTo("valid", "expired")}},
		{"legal name", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckCompleted, with("legal_name", "Al Noor Holding")),
			map[string]any{"previous_check_id": int64(1), "legal_name": fromTo("Al Noor Trading", "Al Noor Holding")}},
		{"expiry", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckCompleted, with("expiry_date_hijri", "1451/01/01")),
			map[string]any{"previous_check_id": int64(1), "expiry_date_hijri": fromTo("1450/01/01", "1451/01/01")}},
		{"expiry gone", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckCompleted, with("expiry_date_hijri", "")),
			map[string]any{"previous_check_id": int64(1), "expiry_date_hijri": fromTo("1450/01/01", "")}},
		{"a failed re-check records none", registry(1, domain.CheckCompleted, base), registry(2, domain.CheckFailed, map[string]any{"status": "failed"}), nil},
		{"match added", screening(3), screening(4, map[string]any{"id": "NK-1", "score": 0.93}),
			map[string]any{"previous_check_id": int64(3), "matches_added": []any{map[string]any{"id": "NK-1", "score": 0.93}}, "matches_removed": []any{}}},
		{"match removed", screening(3, map[string]any{"id": "NK-1", "score": 0.93}), screening(4),
			map[string]any{"previous_check_id": int64(3), "matches_added": []any{}, "matches_removed": []any{map[string]any{"id": "NK-1", "score": 0.93}}}},
		{"one added, one removed, one kept", screening(3, map[string]any{"id": "A", "score": 0.8}, map[string]any{"id": "B", "score": 0.75}),
			screening(4, map[string]any{"id": "B", "score": 0.77}, map[string]any{"id": "C", "score": 0.91}),
			map[string]any{"previous_check_id": int64(3), "matches_added": []any{map[string]any{"id": "C", "score": 0.91}}, "matches_removed": []any{map[string]any{"id": "A", "score": 0.8}}}},
		{"a dismissed match left out is not removed", screening(3, map[string]any{"id": "A", "score": 0.8}, map[string]any{"id": "FP", "score": 0.95}),
			screening(4),
			map[string]any{"previous_check_id": int64(3), "matches_added": []any{}, "matches_removed": []any{map[string]any{"id": "A", "score": 0.8}},
				"matches_dismissed": []any{map[string]any{"id": "FP", "score": 0.95}}}},
		{"different types", registry(1, domain.CheckCompleted, base), screening(4), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Changes(tt.prev, tt.next, []string{"FP"})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			if got != nil {
				// The allow-list keeps every key of a change.
				kept := Sanitize(tt.next.Type, map[string]any{"changes": got})["changes"]
				if !reflect.DeepEqual(kept, got) {
					t.Errorf("sanitised %#v", kept)
				}
			}
		})
	}
}

func TestPreviousOf(t *testing.T) {
	c := registry(10, domain.CheckCompleted, nil)
	tests := []struct {
		name    string
		earlier []domain.Check
		want    int64 // 0: none
	}{
		{"none", nil, 0},
		{"the newest completed of the type", []domain.Check{registry(2, domain.CheckCompleted, nil), registry(5, domain.CheckCompleted, nil), screening(7)}, 5},
		{"a failed one is skipped", []domain.Check{registry(2, domain.CheckCompleted, nil), registry(6, domain.CheckFailed, nil)}, 2},
		{"itself and later ones are not previous", []domain.Check{registry(10, domain.CheckCompleted, nil), registry(12, domain.CheckCompleted, nil), registry(3, domain.CheckCompleted, nil)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := PreviousOf(c, tt.earlier)
			if ok != (tt.want != 0) || got.ID != tt.want {
				t.Errorf("got %d %v, want %d", got.ID, ok, tt.want)
			}
		})
	}
}
