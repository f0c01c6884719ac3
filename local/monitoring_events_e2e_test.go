package main

import (
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
)

// TestAMonitoringReviewFiresNothingUntilItChanges, through the delivery
// pipeline (the reviews stream, the events queue, the deliveries queue, a
// receiver that verifies each signature): a re-screen that opens a review
// for an approved entity sends subscribers nothing — opening a review is
// none of the contract's events — and the review's first change (an
// operator assigned) is delivered as for any review.
func TestAMonitoringReviewFiresNothingUntilItChanges(t *testing.T) {
	f := newFlowFixture(t)
	rcv := newTestReceiver(t, "")
	rcv.setSecret(f.endpoint(rcv.url(), domain.EventTypes()...).Secret)
	initial := f.review()
	f.approve(initial.ID) // its start assigns it, then it is approved: two events
	f.deliveries(2, domain.DeliveryFilter{})

	d, err := f.st.EntityDetail(f.ctx, f.acct, initial.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(d.Checks, func(c domain.Check) bool { return c.Type == domain.CheckOrganizationScreening })
	qr := checks.YenteQueryResponse{Status: 200, Results: []checks.ScreeningMatch{
		{ID: "NK-ofac-9", Caption: d.Entity.LegalName, Schema: "Company", Score: 0.95, Match: true, Datasets: []string{"us_ofac_sdn"},
			Properties: checks.MatchProperties{Topics: []string{"sanction"}}}}}
	qr.Total.Value = 1
	svc := &screening.Service{Store: f.st, Clock: domain.SystemClock, Readers: map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{}}}
	if applied, err := svc.Apply(f.ctx, checks.ProviderOpenSanctions, "msg_rescreen_1",
		screening.Answer{Reference: checks.ScreeningReference(f.acct, d.Checks[i].ID), Response: qr}); err != nil || !applied {
		t.Fatalf("the re-screen: applied %v, %v", applied, err)
	}
	reviews, err := f.st.EntityReviews(f.ctx, f.acct, initial.EntityID, 2)
	if err != nil || len(reviews) != 2 || reviews[0].TriggeringReason != domain.TriggerProviderUpdate {
		t.Fatalf("reviews %+v, %v: want the one monitoring opened", reviews, err)
	}
	opened := reviews[0]
	// The pipeline had time to carry the review's creation through; then
	// the operator takes it.
	time.Sleep(500 * time.Millisecond)
	f.decide(domain.ActionAssign, opened.ID, func(r *decisions.Request) { r.AssigneeID = f.op.ID })
	f.deliveries(3, domain.DeliveryFilter{})
	if got := rcv.kindsOf(opened.ID); !slices.Equal(got, []string{string(domain.EventAssigned)}) {
		t.Errorf("events of the review monitoring opened: %v; want only its assignment, nothing for its opening", got)
	}
	if got := rcv.kindsOf(initial.ID); len(got) != 2 {
		t.Errorf("events of the initial review: %v; want its assignment and approval", got)
	}
}

// kindsOf lists the event kinds verified so far of one review, in order.
func (r *testReceiver) kindsOf(reviewID int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.verified {
		if ev.EntityReviewID == reviewID {
			out = append(out, ev.EventType)
		}
	}
	return out
}
