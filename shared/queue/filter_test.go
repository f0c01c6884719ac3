package queue

import (
	"net/url"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestQueueFilterValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     Filter
		field string // "" when valid
	}{
		{"empty", Filter{}, ""},
		{"everything", Filter{Status: domain.ReviewEscalated, Purpose: domain.ReviewPeriodic, Assignee: AssigneeMe,
			Escalated: new(true), Sanctions: "hit", Risk: "high", Country: "SA"}, ""},
		{"a finished status", Filter{Status: domain.ReviewCompleted}, "status"},
		{"an unknown status", Filter{Status: "pending"}, "status"},
		{"an unknown purpose", Filter{Purpose: "annual"}, "purpose"},
		{"an operator id as assignee", Filter{Assignee: "42"}, "assignee"},
		{"an unknown sanctions status", Filter{Sanctions: "maybe"}, "sanctions"},
		{"an unknown risk", Filter{Risk: "extreme"}, "risk"},
		{"a lower-case country", Filter{Country: "sa"}, "country"},
		{"no such country", Filter{Country: "XX"}, "country"},
		{"an alpha-3 code", Filter{Country: "SAU"}, "country"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkField(t, tc.f.Validate(), tc.field)
		})
	}
}

func TestQueueParseFilter(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  Filter
		field string
	}{
		{"", Filter{}, ""},
		{"cursor=abc&per_page=3", Filter{}, ""},
		{"status=open&purpose=initial&assignee=unassigned", Filter{Status: domain.ReviewOpen, Purpose: domain.ReviewInitial, Assignee: AssigneeUnassigned}, ""},
		{"escalated=true", Filter{Escalated: new(true)}, ""},
		{"escalated=false&country=ae", Filter{Escalated: new(false), Country: "AE"}, ""},
		{"risk=high&sanctions=needs_review", Filter{Risk: "high", Sanctions: "needs_review"}, ""},
		{"status=", Filter{}, ""},
		{"escalated=yes", Filter{}, "escalated"},
		{"escalated=1", Filter{}, "escalated"},
		{"status=open&status=escalated", Filter{}, "status"},
		{"status=completed", Filter{}, "status"},
		{"country=Saudi", Filter{}, "country"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseFilter(q)
			checkField(t, err, tc.field)
			if err == nil && !sameFilter(got, tc.want) {
				t.Errorf("ParseFilter(%q) = %+v, want %+v", tc.query, got, tc.want)
			}
		})
	}
}

func TestQueueFilterQuery(t *testing.T) {
	for _, tc := range []struct {
		name       string
		f          Filter
		operator   int64
		assignedTo int64
		unassigned bool
		field      string
	}{
		{"anyone", Filter{}, 7, 0, false, ""},
		{"me", Filter{Assignee: AssigneeMe}, 7, 7, false, ""},
		{"unassigned", Filter{Assignee: AssigneeUnassigned}, 7, 0, true, ""},
		{"me without an operator", Filter{Assignee: AssigneeMe}, 0, 0, false, "assignee"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.f.query(1, tc.operator, "", PageSize)
			checkField(t, err, tc.field)
			if err == nil && (q.AssignedTo != tc.assignedTo || q.Unassigned != tc.unassigned) {
				t.Errorf("query = assigned to %d, unassigned %v; want %d, %v", q.AssignedTo, q.Unassigned, tc.assignedTo, tc.unassigned)
			}
		})
	}
}

// checkField fails unless err is a validation error on field, or nil when
// field is "".
func checkField(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if domain.ErrorCode(err) != domain.ECodeInvalid || domain.ErrorFields(err)[field] == nil {
		t.Fatalf("err = %v, want a validation error on %s", err, field)
	}
}

func sameFilter(a, b Filter) bool {
	ea, eb := a.Escalated, b.Escalated
	a.Escalated, b.Escalated = nil, nil
	return a == b && (ea == nil) == (eb == nil) && (ea == nil || *ea == *eb)
}
