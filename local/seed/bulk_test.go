package seed

import (
	"reflect"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestBulk(t *testing.T) {
	const n = 10_000
	start := time.Now()
	ds := Bulk(testNow, n)
	took := time.Since(start)
	if took > time.Second {
		t.Errorf("Bulk(%d) took %v", n, took)
	}
	t.Logf("Bulk(%d) took %v", n, took)
	if len(ds) != n {
		t.Fatalf("%d entities, want %d", len(ds), n)
	}
	demo := map[string]bool{}
	for _, d := range Demo(testNow, 1000) {
		demo[d.Entity.RegistrationNumber] = true
	}
	seen := make(map[string]bool, n)
	statuses := map[domain.EntityStatus]int{}
	from := nowUTC.Add(-120 * 24 * time.Hour)
	for i, d := range ds {
		e := d.Entity
		if e.CountryCode != "SA" || e.CountryID != 682 || !saNumber.MatchString(e.RegistrationNumber) {
			t.Fatalf("entity %d: %s %d %q", i, e.CountryCode, e.CountryID, e.RegistrationNumber)
		}
		if seen[e.RegistrationNumber] || demo[e.RegistrationNumber] {
			t.Fatalf("entity %d: registration number %s repeats", i, e.RegistrationNumber)
		}
		seen[e.RegistrationNumber] = true
		if len(d.Checks) != 1 || len(d.Reviews) != 1 {
			t.Fatalf("entity %d: %d checks, %d reviews", i, len(d.Checks), len(d.Reviews))
		}
		if i > 0 && !e.CreatedAt.After(ds[i-1].Entity.CreatedAt) {
			t.Fatalf("entity %d not created after entity %d", i, i-1)
		}
		statuses[e.Status]++
		if i%97 == 0 { // the full checks are slow for 10,000
			checkTimes(t, d, from, nowUTC)
			checkChecks(t, d)
			checkReviews(t, d)
		}
		checkSanctions(t, d)
	}
	if len(statuses) < 5 {
		t.Errorf("statuses %v, want variety", statuses)
	}
	if !reflect.DeepEqual(Bulk(testNow, 500), Bulk(testNow, 500)) {
		t.Error("Bulk is not deterministic")
	}
}

func BenchmarkBulk(b *testing.B) {
	for b.Loop() {
		Bulk(testNow, 10_000)
	}
}

func BenchmarkDemo(b *testing.B) {
	for b.Loop() {
		Demo(testNow, 1000)
	}
}
