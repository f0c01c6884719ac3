package seed

import (
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// A now off UTC and with nanoseconds, to prove both are normalised away.
var testNow = time.Date(2025, 3, 14, 12, 26, 53, 589_793_238, time.FixedZone("AST", 3*3600))

var nowUTC = testNow.UTC().Truncate(time.Millisecond)

var (
	saNumber = regexp.MustCompile(domain.SaudiRegistrationPattern)
	aeNumber = regexp.MustCompile(`^CN-[0-9]{7}$`)
	generic  = regexp.MustCompile(domain.GenericRegistrationPattern)
)

// sizes are the demo set sizes every property is checked at.
var sizes = []int{120, 121, 400, 1000}

func TestDemoDeterministic(t *testing.T) {
	a, b := Demo(testNow, 300), Demo(testNow, 300)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls with the same arguments differ")
	}
	if !reflect.DeepEqual(Demo(testNow, 50), Demo(testNow.UTC(), 50)) {
		t.Error("the zone of now changes the data")
	}
	// Content (not timestamps) depends on the position only, so every n >= 120
	// contains the fully covering first 120.
	small := Demo(testNow, 120)
	for i, d := range small {
		x, y := d.Entity, a[i].Entity
		if x.LegalName != y.LegalName || x.RegistrationNumber != y.RegistrationNumber || x.Status != y.Status ||
			x.SanctionsStatus != y.SanctionsStatus || x.RegistrationStatus != y.RegistrationStatus ||
			len(d.Checks) != len(a[i].Checks) || len(d.Reviews) != len(a[i].Reviews) {
			t.Fatalf("entity %d differs between n=120 and n=300", i)
		}
	}
}

func TestDemoEdgeSizes(t *testing.T) {
	for _, n := range []int{-1, 0} {
		if got := Demo(testNow, n); got == nil || len(got) != 0 {
			t.Errorf("Demo(%d) = %v, want empty", n, got)
		}
		if got := Bulk(testNow, n); got == nil || len(got) != 0 {
			t.Errorf("Bulk(%d) = %v, want empty", n, got)
		}
	}
	for _, n := range []int{1, 2, 7} {
		ds := Demo(testNow, n)
		if len(ds) != n {
			t.Fatalf("Demo(%d) has %d entities", n, len(ds))
		}
		for _, d := range ds {
			checkTimes(t, d, nowUTC.Add(-120*24*time.Hour), nowUTC)
			checkChecks(t, d)
			checkReviews(t, d)
			checkSanctions(t, d)
		}
	}
}
