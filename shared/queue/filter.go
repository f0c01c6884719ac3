package queue

import (
	"net/url"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// Assignee filters.
const (
	AssigneeMe         = "me"
	AssigneeUnassigned = "unassigned"
)

// Filter narrows the queue; a zero field keeps everything.
type Filter struct {
	// Status is one of the active statuses.
	Status  domain.ReviewStatus
	Purpose domain.ReviewPurpose
	// Assignee is AssigneeMe, AssigneeUnassigned or "" for anyone.
	Assignee string
	// Escalated keeps the reviews escalated to AML (true) or those that
	// are not (false).
	Escalated *bool
	// Sanctions is the entity's sanctions status, Risk its risk level.
	Sanctions string
	Risk      string
	// Country is the entity's ISO 3166-1 alpha-2 code, upper case.
	Country string
}

// The query string's names of the filters.
const (
	paramStatus    = "status"
	paramPurpose   = "purpose"
	paramAssignee  = "assignee"
	paramEscalated = "escalated"
	paramSanctions = "sanctions"
	paramRisk      = "risk"
	paramCountry   = "country"
)

// Validate refuses a value the queue does not know, naming its field: a
// filter that could never match is a mistake to show, not an empty page.
func (f Filter) Validate() error {
	activeStatuses := []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}
	switch {
	case f.Status != "" && !slices.Contains(activeStatuses, f.Status):
		return domain.Invalid(paramStatus, "must be one of open, in_progress, escalated")
	case f.Purpose != "" && !slices.Contains(domain.ReviewPurposes(), f.Purpose):
		return domain.Invalid(paramPurpose, "must be one of "+joined(domain.ReviewPurposes()))
	case f.Assignee != "" && f.Assignee != AssigneeMe && f.Assignee != AssigneeUnassigned:
		return domain.Invalid(paramAssignee, "must be me or unassigned")
	case f.Sanctions != "" && !slices.Contains(domain.SanctionsStatuses(), domain.SanctionsStatus(f.Sanctions)):
		return domain.Invalid(paramSanctions, "must be one of "+joined(domain.SanctionsStatuses()))
	case f.Risk != "" && !slices.Contains(domain.RiskLevels(), domain.RiskLevel(f.Risk)):
		return domain.Invalid(paramRisk, "must be one of "+joined(domain.RiskLevels()))
	case f.Country != "" && !isCountry(f.Country):
		return domain.Invalid(paramCountry, "must be an ISO 3166-1 alpha-2 code in upper case")
	}
	return nil
}

func isCountry(code string) bool {
	c, ok := country.ISO().ByAlpha2(code)
	return ok && c.Alpha2 == code
}

func joined[T ~string](vs []T) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return strings.Join(out, ", ")
}

// ParseFilter reads the filters from the page's query string; other
// parameters (the cursor) are left to the caller. A filter given twice, or
// with a value the queue does not know, is refused, naming it; the country
// is read in any case.
func ParseFilter(q url.Values) (Filter, error) {
	var f Filter
	for _, name := range []string{paramStatus, paramPurpose, paramAssignee, paramEscalated, paramSanctions, paramRisk, paramCountry} {
		vs := q[name]
		if len(vs) > 1 {
			return Filter{}, domain.Invalid(name, "is given more than once")
		}
		if len(vs) == 0 || vs[0] == "" {
			continue
		}
		v := vs[0]
		switch name {
		case paramStatus:
			f.Status = domain.ReviewStatus(v)
		case paramPurpose:
			f.Purpose = domain.ReviewPurpose(v)
		case paramAssignee:
			f.Assignee = v
		case paramEscalated:
			switch v {
			case "true":
				f.Escalated = new(true)
			case "false":
				f.Escalated = new(false)
			default:
				return Filter{}, domain.Invalid(paramEscalated, "must be true or false")
			}
		case paramSanctions:
			f.Sanctions = v
		case paramRisk:
			f.Risk = v
		case paramCountry:
			f.Country = strings.ToUpper(v)
		}
	}
	return f, f.Validate()
}

// query is the store's question for the filter, asked by operatorID ("me").
func (f Filter) query(accountID, operatorID int64, after string, limit int) (domain.QueueQuery, error) {
	q := domain.QueueQuery{
		AccountID: accountID, After: after, Limit: limit,
		Status: f.Status, Purpose: f.Purpose, Unassigned: f.Assignee == AssigneeUnassigned,
		Escalated: f.Escalated, Country: f.Country,
		Risk: domain.RiskLevel(f.Risk), Sanctions: domain.SanctionsStatus(f.Sanctions),
	}
	if f.Assignee == AssigneeMe {
		if operatorID <= 0 {
			return domain.QueueQuery{}, domain.Invalid(paramAssignee, "me needs an operator")
		}
		q.AssignedTo = operatorID
	}
	return q, nil
}
