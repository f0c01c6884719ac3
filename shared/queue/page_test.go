package queue_test

import (
	"context"
	"encoding/base64"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
)

// Each filter keeps exactly the active reviews it names, oldest first;
// finished reviews never show.
func TestQueueFilters(t *testing.T) {
	w := newWorld(t)
	acct := w.account(t)
	var specs []spec
	for i := range 24 {
		s := spec{
			country:   []string{"SA", "AE"}[i%2],
			status:    []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}[i%3],
			purpose:   []domain.ReviewPurpose{domain.ReviewInitial, domain.ReviewPeriodic}[(i/2)%2],
			assignee:  []int64{0, 7, 9}[(i/4)%3],
			risk:      []domain.RiskLevel{"", domain.RiskLow, domain.RiskHigh}[(i/3)%3],
			sanctions: []domain.SanctionsStatus{domain.SanctionsClear, domain.SanctionsHit}[(i/5)%2],
			created:   t0.Add(time.Duration(i) * time.Hour),
		}
		if s.status == domain.ReviewEscalated {
			s.escalation = []string{domain.EscalationAML, domain.EscalationSupervisor}[(i/3)%2]
		}
		specs = append(specs, s)
	}
	for i, st := range []domain.ReviewStatus{domain.ReviewCompleted, domain.ReviewCompleted, domain.ReviewCancelled} {
		specs = append(specs, spec{status: st, created: t0.Add(-time.Duration(i+1) * time.Hour)})
	}
	reviews := w.seed(t, acct, specs)

	for _, tc := range []struct {
		name string
		f    queue.Filter
		keep func(spec) bool
	}{
		{"none", queue.Filter{}, func(spec) bool { return true }},
		{"status open", queue.Filter{Status: domain.ReviewOpen}, func(s spec) bool { return s.status == domain.ReviewOpen }},
		{"status escalated", queue.Filter{Status: domain.ReviewEscalated}, func(s spec) bool { return s.status == domain.ReviewEscalated }},
		{"purpose periodic", queue.Filter{Purpose: domain.ReviewPeriodic}, func(s spec) bool { return s.purpose == domain.ReviewPeriodic }},
		{"assigned to me", queue.Filter{Assignee: queue.AssigneeMe}, func(s spec) bool { return s.assignee == 7 }},
		{"unassigned", queue.Filter{Assignee: queue.AssigneeUnassigned}, func(s spec) bool { return s.assignee == 0 }},
		{"escalated to AML", queue.Filter{Escalated: new(true)}, func(s spec) bool { return s.escalation == domain.EscalationAML }},
		{"not escalated to AML", queue.Filter{Escalated: new(false)}, func(s spec) bool { return s.escalation != domain.EscalationAML }},
		{"sanctions hit", queue.Filter{Sanctions: "hit"}, func(s spec) bool { return s.sanctions == domain.SanctionsHit }},
		{"risk high", queue.Filter{Risk: "high"}, func(s spec) bool { return s.risk == domain.RiskHigh }},
		{"country AE", queue.Filter{Country: "AE"}, func(s spec) bool { return s.country == "AE" }},
		{"country with no entity", queue.Filter{Country: "FR"}, func(spec) bool { return false }},
		{"open, unassigned, in SA", queue.Filter{Status: domain.ReviewOpen, Assignee: queue.AssigneeUnassigned, Country: "SA"},
			func(s spec) bool { return s.status == domain.ReviewOpen && s.assignee == 0 && s.country == "SA" }},
		{"mine, low risk, clear", queue.Filter{Assignee: queue.AssigneeMe, Risk: "low", Sanctions: "clear"},
			func(s spec) bool {
				return s.assignee == 7 && s.risk == domain.RiskLow && s.sanctions == domain.SanctionsClear
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []int64
			for i, s := range specs {
				if s.status.Active() && tc.keep(s) {
					want = append(want, reviews[i].ID)
				}
			}
			rows := w.walk(t, acct, 7, tc.f, 5)
			if got := ids(rows); !slices.Equal(got, want) {
				t.Fatalf("reviews %v, want %v", got, want)
			}
			for _, r := range rows {
				s := specs[slices.IndexFunc(reviews, func(rv domain.Review) bool { return rv.ID == r.Review.ID })]
				if r.Country != s.country || r.Risk != string(s.risk) || r.Sanctions != string(s.sanctions) || r.LegalName == "" {
					t.Errorf("review %d shows %q %q %q %q, want %s, risk %q, sanctions %q", r.Review.ID, r.LegalName, r.Country, r.Risk, r.Sanctions, s.country, s.risk, s.sanctions)
				}
			}
		})
	}
}

// The queue lists oldest first (ties by review id), each review once,
// across pages, and ends.
func TestQueueOldestFirst(t *testing.T) {
	w := newWorld(t)
	acct := w.account(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	specs := make([]spec, 60)
	for i, k := range rnd.Perm(len(specs)) {
		specs[i] = spec{created: t0.Add(time.Duration(k/2) * time.Minute)} // two reviews at each time
	}
	reviews := w.seed(t, acct, specs)
	want := slices.Clone(reviews)
	slices.SortFunc(want, func(a, b domain.Review) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	rows := w.walk(t, acct, 7, queue.Filter{}, 4)
	got := ids(rows)
	wantIDs := make([]int64, len(want))
	for i, r := range want {
		wantIDs[i] = r.ID
	}
	if !slices.Equal(got, wantIDs) {
		t.Fatalf("order %v, want %v", got, wantIDs)
	}
	for _, r := range rows {
		if want := w.svc.Clock.Now().Sub(r.Review.CreatedAt); r.Age != want {
			t.Errorf("review %d: age %s, want %s", r.Review.ID, r.Age, want)
		}
	}
}

// An account's queue shows its own reviews only, whatever the cursor.
func TestQueueAccountsApart(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a, b := w.account(t), w.account(t)
	// b's reviews are older: a walk or a claim that strayed would meet
	// them first.
	w.seed(t, b, []spec{{created: t0.Add(-time.Hour)}, {created: t0.Add(-time.Hour)}, {status: domain.ReviewEscalated}})
	mine := w.seed(t, a, []spec{{created: t0}, {created: t0.Add(time.Minute)}})
	rows := w.walk(t, a, 7, queue.Filter{}, 3)
	if got := ids(rows); !slices.Equal(got, []int64{mine[0].ID, mine[1].ID}) {
		t.Fatalf("account %d's queue shows %v", a, got)
	}
	for _, r := range rows {
		if r.Review.AccountID != a {
			t.Errorf("review %d of account %d in account %d's queue", r.Review.ID, r.Review.AccountID, a)
		}
	}
	p, err := w.svc.Page(ctx, a, 7, queue.Filter{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[domain.ReviewStatus]int{domain.ReviewOpen: 2, domain.ReviewInProgress: 0, domain.ReviewEscalated: 0}; !maps.Equal(p.Counts, want) {
		t.Errorf("counts %v, want %v", p.Counts, want)
	}
	got, err := w.svc.ClaimNext(ctx, actor(a, 7, "claim-apart"), operator(a, 7), queue.Filter{})
	if err != nil || got.ID != mine[0].ID {
		t.Errorf("ClaimNext = review %d (account %d), %v; want review %d", got.ID, got.AccountID, err, mine[0].ID)
	}
}

// A cursor the service did not give is refused; one naming a place in
// another account's queue reads the caller's own account after that place.
func TestQueueForgedCursor(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a, b := w.account(t), w.account(t)
	theirs := w.seed(t, b, []spec{{created: t0}, {created: t0.Add(time.Minute)}})
	mine := w.seed(t, a, []spec{{created: t0.Add(time.Second)}, {created: t0.Add(time.Hour)}})
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name   string
		cursor string
		want   []int64 // nil: refused
	}{
		{"garbage", "%%%not-base64%%%", nil},
		{"a json key", b64(`{"account_id":{"N":"` + "1" + `"},"queue_key":{"S":"x"}}`), nil},
		{"an id alone", b64("17"), nil},
		{"huge", string(make([]byte, 4096)), nil},
		{"a place in another account's queue", b64(domain.QueuePosition(theirs[0].CreatedAt, theirs[0].ID)), []int64{mine[0].ID, mine[1].ID}},
		{"a place past the end", b64(domain.QueuePosition(t0.AddDate(5, 0, 0), 1)), []int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := w.svc.Page(ctx, a, 7, queue.Filter{}, tc.cursor)
			if tc.want == nil {
				if domain.ErrorCode(err) != domain.ECodeInvalid || domain.ErrorFields(err)["cursor"] == nil {
					t.Fatalf("Page = %d rows, %v; want a validation error on cursor", len(p.Rows), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Rows); !slices.Equal(got, tc.want) || p.Next != "" {
				t.Errorf("Page = %v (next %q), want %v", got, p.Next, tc.want)
			}
		})
	}
}
