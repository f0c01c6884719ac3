package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/webpage"
)

// queuePage is the console's home: the queue, its counts, "Take the next
// one", and the decisions waiting for a second operator.
type queuePage struct {
	Filter  filterValues
	Choices filterChoices
	// Problem is a filter refused; Notice what "Take the next one" found.
	Problem, Notice string
	Counts          []statusCount
	Rows            []queue.Row
	// Next is the next page's URL, "" at the end.
	Next    string
	CanTake bool
	Pending []pendingRow
}

// filterValues are the filters as the query string gave them, shown again
// in the form and carried by "Take the next one".
type filterValues struct {
	Status, Purpose, Assignee, Escalated, Sanctions, Risk, Country string
}

// query is the filters as the query string names them (package queue's
// names), the empty ones left out.
func (f filterValues) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "purpose": f.Purpose, "assignee": f.Assignee, "escalated": f.Escalated,
		"sanctions": f.Sanctions, "risk": f.Risk, "country": f.Country} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func filterValuesOf(q url.Values) filterValues {
	return filterValues{Status: q.Get("status"), Purpose: q.Get("purpose"), Assignee: q.Get("assignee"), Escalated: q.Get("escalated"),
		Sanctions: q.Get("sanctions"), Risk: q.Get("risk"), Country: q.Get("country")}
}

// filterChoices are the values the filter form offers.
type filterChoices struct {
	Statuses  []domain.ReviewStatus
	Purposes  []domain.ReviewPurpose
	Sanctions []domain.SanctionsStatus
	Risks     []domain.RiskLevel
}

type statusCount struct {
	Status domain.ReviewStatus
	Count  int
}

// pendingRow is a decision waiting for a second operator.
type pendingRow struct {
	domain.PendingApproval
	Age time.Duration
	// Mine: the signed-in operator made it, and cannot approve it.
	Mine bool
}

func activeStatuses() []domain.ReviewStatus {
	return []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}
}

func (h *handler) queuePage(c *webpage.Call) {
	h.showQueue(c, c.R.URL.Query(), http.StatusOK, "")
}

// showQueue renders the queue for the query string's filters and cursor.
// A refused filter shows the page with the problem and no rows.
func (h *handler) showQueue(c *webpage.Call, q url.Values, status int, notice string) {
	ctx := c.R.Context()
	page := queuePage{Filter: filterValuesOf(q), Notice: notice, CanTake: c.Session.Can(domain.PermReviewDecide),
		Choices: filterChoices{Statuses: activeStatuses(), Purposes: domain.ReviewPurposes(), Sanctions: domain.SanctionsStatuses(), Risks: domain.RiskLevels()}}
	f, err := queue.ParseFilter(q)
	var p queue.Page
	if err == nil {
		p, err = h.d.Queue.Page(ctx, c.Session.AccountID, c.Session.Operator.ID, f, q.Get("cursor"))
	}
	switch {
	case domain.ErrorCode(err) == domain.ECodeInvalid:
		page.Problem, status = domain.Refusal(err), http.StatusUnprocessableEntity
	case err != nil:
		c.Fail(err)
		return
	}
	page.Rows = p.Rows
	for _, s := range activeStatuses() {
		page.Counts = append(page.Counts, statusCount{Status: s, Count: p.Counts[s]})
	}
	if p.Next != "" {
		nq := page.Filter.query()
		nq.Set("cursor", p.Next)
		page.Next = c.Base + "/queue?" + nq.Encode()
	}
	now := h.d.Clock.Now()
	pending, err := h.d.Store.PendingApprovals(ctx, c.Session.AccountID, now)
	if err != nil {
		c.Fail(err)
		return
	}
	for _, pa := range pending {
		page.Pending = append(page.Pending, pendingRow{PendingApproval: pa, Age: max(now.Sub(pa.CreatedAt), 0), Mine: pa.MakerID == c.Session.Operator.ID})
	}
	c.Render(status, "queue", "Queue", "queue", page)
}

// takeNext claims the oldest unassigned open review the filters keep and
// opens it.
func (h *handler) takeNext(c *webpage.Call) {
	form := filterValuesOf(c.R.PostForm).query()
	f, err := queue.ParseFilter(form)
	if err != nil {
		h.showQueue(c, form, http.StatusUnprocessableEntity, "")
		return
	}
	// Audited as the signed-in operator's, naming the session's passkey.
	a := c.Actor()
	a.SessionCredential = string(c.Session.CredentialID)
	r, err := h.d.Queue.ClaimNext(c.R.Context(), a, c.Session.Operator, f)
	switch domain.ErrorCode(err) {
	case "":
		c.Log.Info("review taken", "review_id", r.ID)
		webpage.Redirect(c.W, c.Base+"/reviews/"+itoa(r.ID))
	case domain.ECodeNotFound:
		h.showQueue(c, form, http.StatusOK, "Nothing is waiting that matches these filters.")
	case domain.ECodeConflict:
		h.showQueue(c, form, http.StatusOK, "Other operators took every review tried: try again.")
	default:
		c.Fail(err)
	}
}
