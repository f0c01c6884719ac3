package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/store"
)

// BenchmarkQueue seeds an account with 1,000 active reviews and one with
// 100,000 (each review with its entity, through the import path, in the
// same tables) and reports the operator console's queue page p50 at
// 100,000 over its p50 at 1,000, measured alternately in the same run
// (target at most 1.3: a page reads the same whatever the account holds),
// for the unfiltered first page, a page filtered on the reviews (open,
// unassigned, SA) and one filtered on the entities (high risk); with the
// requests and items one page reads at each size, and the seeding time.
func BenchmarkQueue(b *testing.B) {
	ctx := context.Background()
	counter := &devstacktest.Reads{}
	db := devstack.DB(counter.Option)
	st := store.New(db, devstacktest.Tables(b, db))
	svc := &queue.Service{Store: st, Clock: domain.SystemClock}
	small, large := 1_000, 100_000
	accounts := map[int]int64{}
	seeded := map[int]time.Duration{}
	for _, n := range []int{small, large} {
		acct, err := st.CreateAccount(ctx, fmt.Sprintf("Bench queue %d", n), time.Now())
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := st.ImportEntities(ctx, acct.ID, queueBenchEntities(time.Now(), n)); err != nil {
			b.Fatal(err)
		}
		seeded[n] = time.Since(start)
		b.Logf("seeded %d active reviews (with their entities) in %s", n, seeded[n].Round(time.Millisecond))
		accounts[n] = acct.ID
	}
	page := func(n int, f queue.Filter) time.Duration {
		start := time.Now()
		p, err := svc.Page(ctx, accounts[n], 7, f, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Rows) == 0 {
			b.Fatalf("an empty queue page at %d", n)
		}
		return time.Since(start)
	}
	for _, tc := range []struct {
		name string
		f    queue.Filter
	}{
		{"Unfiltered", queue.Filter{}},
		{"OpenUnassignedSA", queue.Filter{Status: domain.ReviewOpen, Assignee: queue.AssigneeUnassigned, Country: "SA"}},
		{"HighRisk", queue.Filter{Risk: string(domain.RiskHigh)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			// What one page reads at each size (reported below: ResetTimer
			// drops metrics reported before it).
			requests, items := map[int]int{}, map[int]int{}
			for _, n := range []int{small, large} {
				counter.Reset()
				page(n, tc.f)
				requests[n], items[n] = counter.Total(), counter.Items()
			}
			for i := 0; i < 20; i++ { // warm up connections and DynamoDB Local
				page(small, tc.f)
				page(large, tc.f)
			}
			b.ResetTimer()
			for range b.N {
				var smalls, larges []time.Duration
				for i := 0; i < benchSamples; i++ { // alternating, so both see the same machine
					smalls = append(smalls, page(small, tc.f))
					larges = append(larges, page(large, tc.f))
				}
				b.ReportMetric(float64(p50(smalls).Microseconds())/1000, "1k-p50-ms")
				b.ReportMetric(float64(p50(larges).Microseconds())/1000, "100k-p50-ms")
				b.ReportMetric(float64(p50(larges))/float64(p50(smalls)), "100k/1k-p50(target<=1.3)")
				for _, n := range []int{small, large} {
					b.ReportMetric(float64(requests[n]), fmt.Sprintf("requests@%d", n))
					b.ReportMetric(float64(items[n]), fmt.Sprintf("items@%d", n))
					b.ReportMetric(seeded[n].Seconds(), fmt.Sprintf("seed-%d-s", n))
				}
			}
		})
	}
}

// queueBenchEntities are n entities with one active review each, oldest
// first a minute apart: open, in progress and escalated in turn, every
// fourth open one assigned, every third entity high risk.
func queueBenchEntities(now time.Time, n int) []domain.EntityDetail {
	now = now.UTC().Truncate(time.Millisecond)
	statuses := []domain.ReviewStatus{domain.ReviewOpen, domain.ReviewInProgress, domain.ReviewEscalated}
	out := make([]domain.EntityDetail, n)
	for i := range out {
		at := now.Add(-time.Duration(n-i) * time.Minute)
		e := domain.Entity{
			RegistrationNumber: fmt.Sprintf("7%09d", i), LegalName: fmt.Sprintf("Queue Bench %d Co", i),
			CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview,
			RegistrationStatus: domain.RegistrationValid, SanctionsStatus: domain.SanctionsClear,
			CreatedAt: at, UpdatedAt: at,
		}
		if i%3 == 0 {
			e.Risk = &domain.RiskAssessment{Level: domain.RiskHigh, AssessedAt: at}
		}
		r := domain.Review{Purpose: domain.ReviewInitial, Status: statuses[i%3], CreatedAt: at, UpdatedAt: at}
		if r.Status == domain.ReviewEscalated {
			r.Escalation = new(domain.EscalationSupervisor)
		}
		if r.Status != domain.ReviewOpen || i%4 == 0 {
			r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Operator 7")
		}
		out[i] = domain.EntityDetail{Entity: e, Reviews: []domain.Review{r}}
	}
	return out
}
