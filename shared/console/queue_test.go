package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestQueue(t *testing.T) {
	w := newWorld(t)
	_, open := w.entity(t, domain.ReviewOpen, "")
	_, mine := w.entity(t, domain.ReviewInProgress, dana)
	_, escalated := w.entity(t, domain.ReviewEscalated, sami)
	viewer, decider := w.signedIn(t, vera), w.signedIn(t, dana)

	for _, tc := range []struct {
		name    string
		who     *browser
		query   string
		status  int
		reviews []int64
		take    bool // offers "Take the next one"
	}{
		{name: "everything, to a viewer", who: viewer, status: 200, reviews: []int64{open.ID, mine.ID, escalated.ID}},
		{name: "everything, to a decider", who: decider, status: 200, reviews: []int64{open.ID, mine.ID, escalated.ID}, take: true},
		{name: "open only", who: decider, query: "status=open", status: 200, reviews: []int64{open.ID}, take: true},
		{name: "mine", who: decider, query: "assignee=me", status: 200, reviews: []int64{mine.ID}, take: true},
		{name: "unassigned", who: decider, query: "assignee=unassigned", status: 200, reviews: []int64{open.ID}, take: true},
		{name: "another country", who: decider, query: "country=AE", status: 200, take: true},
		{name: "sanctions to review", who: decider, query: "sanctions=needs_review", status: 200, reviews: []int64{open.ID, mine.ID, escalated.ID}, take: true},
		{name: "a filter the queue does not know", who: decider, query: "status=completed", status: 422, take: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.who.get("/console/queue?" + tc.query)
			if p.status != tc.status {
				t.Fatalf("status %d, want %d\n%s", p.status, tc.status, p.body)
			}
			if got := strings.Count(p.body, `class="queue-row"`); got != len(tc.reviews) {
				t.Errorf("%d rows, want %d", got, len(tc.reviews))
			}
			last := -1
			for _, id := range tc.reviews {
				at := strings.Index(p.body, fmt.Sprintf(`href="/console/reviews/%d"`, id))
				if at < last {
					t.Errorf("review %d out of order (oldest first)", id)
				}
				last = at
			}
			if got := strings.Contains(p.body, "Take the next one"); got != tc.take {
				t.Errorf("take the next one offered: %v", got)
			}
		})
	}

	p := viewer.get("/console/queue")
	for _, want := range []string{"open<strong>1</strong>", "in progress<strong>1</strong>", "escalated<strong>1</strong>", "due in 2 days", "3 d 0 h"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the queue does not show %q", want)
		}
	}

	// Take the next one: the oldest unassigned open review, now the
	// decider's and started; then nothing is left to take.
	take := formWith(t, decider.get("/console/queue").body, "action", "/console/queue/next")
	got := decider.submit(take, nil)
	if got.status != http.StatusSeeOther || got.header.Get("Location") != fmt.Sprintf("/console/reviews/%d", open.ID) {
		t.Fatalf("take the next one: %d to %q", got.status, got.header.Get("Location"))
	}
	r, err := w.st.Review(context.Background(), w.account.ID, open.ID)
	if err != nil || r.Status != domain.ReviewInProgress || domain.Deref(r.AssignedUserID) != w.ops[dana].ID {
		t.Errorf("taken review %+v, %v", r, err)
	}
	take = formWith(t, decider.get("/console/queue").body, "action", "/console/queue/next")
	if p := decider.submit(take, nil); p.status != http.StatusOK || !strings.Contains(p.body, "Nothing is waiting") {
		t.Errorf("nothing left: %d", p.status)
	}

	// A viewer may not take one, whatever the form says.
	if p := viewer.post("/console/queue/next", url.Values{"csrf": {csrfOf(t, viewer.get("/console/queue").body)}, "action_id": {take.hidden.Get("action_id")}}); p.status != http.StatusForbidden {
		t.Errorf("a viewer took a review: %d", p.status)
	}
}
