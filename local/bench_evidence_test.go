package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

// BenchmarkCreateEntityEvidence weighs keeping the providers' answers: the
// same creates through two gateways over one store, one whose intake keeps
// evidence (as deployed) and one whose intake does not (checks.Runner's
// NoEvidence, set only here), taken in turns, and reports the p50 of the
// first over the p50 of the second (target at most 1.1), with the
// simulator answering as providers do (registry 300 ms, screening 500 ms)
// and at once (the store's share alone, for information).
func BenchmarkCreateEntityEvidence(b *testing.B) {
	const samples = 15
	ctx := context.Background()
	st := devstacktest.Store(b)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench evidence", []string{"SA"})
	if err != nil {
		b.Fatal(err)
	}
	key, err := createKey(ctx, e, acct.ID, []string{domain.PermEntityCreate})
	if err != nil {
		b.Fatal(err)
	}
	seq := 0
	create := func(url string) time.Duration {
		seq++
		return timedCreate(b, url, key, plainNumber(seq))
	}
	gateways := func(registry, screening time.Duration) (with, without *httptest.Server, stop func()) {
		simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(),
			RegistryLatency: registry, ScreeningLatency: screening})
		keep := simulatorProviders(simSrv.URL)
		skip := simulatorProviders(simSrv.URL)
		skip.intake.(*checks.Runner).NoEvidence = true
		with, without = httptest.NewServer(newGateway(st, quietLogger(), keep)), httptest.NewServer(newGateway(st, quietLogger(), skip))
		return with, without, func() { with.Close(); without.Close(); simSrv.Close() }
	}

	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, run := range []struct {
			name                string
			registry, screening time.Duration
			metric              string
		}{
			{"providers' latency", 300 * time.Millisecond, 500 * time.Millisecond, "create-with/without-evidence-p50(target<=1.1)"},
			{"providers at once", 0, 0, "at-once:create-with/without-evidence-p50"},
		} {
			with, without, stop := gateways(run.registry, run.screening)
			var kept, skipped []time.Duration
			for i := 0; i < samples; i++ {
				kept = append(kept, create(with.URL))
				skipped = append(skipped, create(without.URL))
			}
			stop()
			b.ReportMetric(float64(p50(kept))/float64(p50(skipped)), run.metric)
			if run.registry > 0 {
				b.ReportMetric(float64(p50(kept).Microseconds())/1000, "with-evidence-p50-ms")
				b.ReportMetric(float64(p50(skipped).Microseconds())/1000, "without-evidence-p50-ms")
			}
		}
	}
}
