package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// These tests run the queue over the store on DynamoDB Local, each on
// tables of its own, counting what every page reads.

var _ queue.Store = (*store.Store)(nil)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

type world struct {
	st    *store.Store
	reads *devstacktest.Reads
	names schema.Names
	svc   *queue.Service
	seq   int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	reads := &devstacktest.Reads{}
	db := devstack.DB(reads.Option)
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	return &world{st: st, reads: reads, names: names,
		svc: &queue.Service{Store: st, Clock: domain.FixedClock(t0.Add(10 * 24 * time.Hour))}}
}

func (w *world) account(t *testing.T) int64 {
	t.Helper()
	w.seq++
	a, err := w.st.CreateAccount(context.Background(), fmt.Sprintf("Queue %s %d", t.Name(), w.seq), t0)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// spec is one seeded entity and its review; zero fields take defaults
// (SA, open, initial, unassigned, never assessed, sanctions not run).
type spec struct {
	country    string
	risk       domain.RiskLevel
	sanctions  domain.SanctionsStatus
	status     domain.ReviewStatus
	purpose    domain.ReviewPurpose
	assignee   int64
	escalation string
	created    time.Time
}

func (s spec) withDefaults() spec {
	if s.country == "" {
		s.country = "SA"
	}
	if s.sanctions == "" {
		s.sanctions = domain.SanctionsNotRun
	}
	if s.status == "" {
		s.status = domain.ReviewOpen
	}
	if s.purpose == "" {
		s.purpose = domain.ReviewInitial
	}
	if s.created.IsZero() {
		s.created = t0
	}
	return s
}

// seed imports one entity per spec with its review, and returns the
// reviews in spec order.
func (w *world) seed(t *testing.T, acct int64, specs []spec) []domain.Review {
	t.Helper()
	ds := make([]domain.EntityDetail, len(specs))
	for i, s := range specs {
		s = s.withDefaults()
		w.seq++
		e := domain.Entity{
			AccountID: acct, RegistrationNumber: fmt.Sprintf("70%08d", w.seq), LegalName: fmt.Sprintf("Entity %d", w.seq),
			CountryCode: s.country, CountryID: map[string]int{"SA": 682, "AE": 784}[s.country],
			Status: domain.EntityReadyForReview, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: s.sanctions,
			CreatedAt: s.created, UpdatedAt: s.created,
		}
		if s.risk != "" {
			e.Risk = &domain.RiskAssessment{Level: s.risk, AssessedAt: s.created}
		}
		r := domain.Review{Purpose: s.purpose, Status: s.status, CreatedAt: s.created, UpdatedAt: s.created}
		if s.assignee != 0 {
			r.AssignedUserID, r.AssignedUserName = new(s.assignee), new(fmt.Sprintf("Operator %d", s.assignee))
		}
		if s.escalation != "" {
			r.Escalation = new(s.escalation)
		}
		if !s.status.Active() {
			r.CompletedAt = new(s.created)
		}
		ds[i] = domain.EntityDetail{Entity: e, Reviews: []domain.Review{r}}
	}
	out, err := w.st.ImportEntities(context.Background(), acct, ds)
	if err != nil {
		t.Fatal(err)
	}
	reviews := make([]domain.Review, len(out))
	for i, d := range out {
		reviews[i] = d.Reviews[0]
	}
	return reviews
}

// operator is an operator of the account who may decide on reviews.
func operator(acct, id int64) domain.Operator {
	return domain.Operator{AccountID: acct, ID: id, Name: fmt.Sprintf("Operator %d", id), Permissions: []string{domain.PermReviewDecide}}
}

// actor acts in a session signed in with the operator's passkey (its
// credential id names the operator: "key-<id>").
func actor(acct, operatorID int64, actionID string) domain.Actor {
	return domain.Actor{AccountID: acct, OperatorID: operatorID, ActionID: actionID,
		SessionCredential: fmt.Sprintf("key-%d", operatorID)}
}

// walk reads every page of the queue, failing past max pages.
func (w *world) walk(t *testing.T, acct, operatorID int64, f queue.Filter, max int) []queue.Row {
	t.Helper()
	var rows []queue.Row
	cursor := ""
	for range max {
		p, err := w.svc.Page(context.Background(), acct, operatorID, f, cursor)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, p.Rows...)
		if p.Next == "" {
			return rows
		}
		cursor = p.Next
	}
	t.Fatalf("the queue did not end within %d pages", max)
	return nil
}

func ids(rows []queue.Row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Review.ID
	}
	return out
}
