package main

// Benchmarks of issue-level targets, each reported as a ratio of two latencies
// measured in the same run (make bench), never asserted as wall-clock limits.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

const (
	benchEntities = 10_000
	benchPerPage  = 50
	benchSamples  = 300
)

type benchAccount struct {
	st       *store.Store
	srv      *httptest.Server
	key      string
	account  int64
	entities []domain.EntityDetail
}

func newBenchAccount(b *testing.B) *benchAccount {
	b.Helper()
	ctx := context.Background()
	st := devstacktest.Store(b)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench", []string{"SA"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ents, err := st.ImportEntities(ctx, acct.ID, seed.Bulk(domain.Now(), benchEntities))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d entities in %s", len(ents), time.Since(start).Round(time.Millisecond))
	key, err := createKey(ctx, e, acct.ID, []string{domain.PermEntityView, domain.PermReviewView})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(newGateway(st, quietLogger(), providers{}))
	b.Cleanup(srv.Close)
	return &benchAccount{st: st, srv: srv, key: key, account: acct.ID, entities: ents}
}

func (a *benchAccount) get(b *testing.B, path string) time.Duration {
	d, _ := timedGet(b, a.srv.URL+path, a.key, "", http.StatusOK)
	return d
}

// timedGet times one GET with an API key (and an If-None-Match when given),
// the whole body read, failing unless it answers want; it returns the time
// and the ETag.
func timedGet(b *testing.B, url, key, ifNoneMatch string, want int) (time.Duration, string) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	d, resp := timed(b, req)
	if resp.StatusCode != want {
		b.Fatalf("GET %s (If-None-Match %q): %d, want %d", url, ifNoneMatch, resp.StatusCode, want)
	}
	return d, resp.Header.Get("ETag")
}

// timed sends req and reads its whole body, and says how long that took.
func timed(b *testing.B, req *http.Request) (time.Duration, *http.Response) {
	b.Helper()
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), resp
}

func p50(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkReadAPI seeds one 10,000-entity account and measures the read
// API's targets on it.
func BenchmarkReadAPI(b *testing.B) {
	a := newBenchAccount(b)
	b.Run("ListDeepPage", func(b *testing.B) { benchListDeepPage(b, a) })
	b.Run("GetEntityGatewayOverhead", func(b *testing.B) { benchGetEntityOverhead(b, a) })
}

// benchListDeepPage compares page 1 with the last page of the account
// (target: deep/first p50 at most 1.2). Samples alternate so that both see
// the same machine.
func benchListDeepPage(b *testing.B, a *benchAccount) {
	deep := benchEntities / benchPerPage
	first := fmt.Sprintf("/api/v1/entities?per_page=%d&page=1", benchPerPage)
	last := fmt.Sprintf("/api/v1/entities?per_page=%d&page=%d", benchPerPage, deep)
	for i := 0; i < 20; i++ { // warm up connections and DynamoDB Local
		a.get(b, first)
		a.get(b, last)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var firsts, deeps []time.Duration
		for i := 0; i < benchSamples; i++ {
			firsts = append(firsts, a.get(b, first))
			deeps = append(deeps, a.get(b, last))
		}
		b.ReportMetric(float64(p50(firsts).Microseconds())/1000, "page1-p50-ms")
		b.ReportMetric(float64(p50(deeps).Microseconds())/1000, fmt.Sprintf("page%d-p50-ms", deep))
		b.ReportMetric(float64(p50(deeps))/float64(p50(firsts)), "deep/first-p50(target<=1.2)")
	}
}

// benchGetEntityOverhead compares GET /entities/{id} through the local
// gateway (authorizer with its cache, proxy event, handler, JSON) with the
// same DynamoDB reads made directly (target: gateway/direct p50 at most 1.5).
func benchGetEntityOverhead(b *testing.B, a *benchAccount) {
	ctx := context.Background()
	pick := func(i int) domain.EntityDetail { return a.entities[(i*7919)%len(a.entities)] }
	direct := func(i int) time.Duration {
		start := time.Now()
		if _, err := a.st.EntityDetail(ctx, a.account, pick(i).Entity.ID); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	viaGateway := func(i int) time.Duration {
		return a.get(b, "/api/v1/entities/"+strconv.FormatInt(pick(i).Entity.ID, 10))
	}
	for i := 0; i < 20; i++ {
		direct(i)
		viaGateway(i)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var ds, gs []time.Duration
		for i := 0; i < benchSamples; i++ {
			ds = append(ds, direct(i))
			gs = append(gs, viaGateway(i))
		}
		b.ReportMetric(float64(p50(ds).Microseconds())/1000, "direct-p50-ms")
		b.ReportMetric(float64(p50(gs).Microseconds())/1000, "gateway-p50-ms")
		b.ReportMetric(float64(p50(gs))/float64(p50(ds)), "gateway/direct-p50(target<=1.5)")
	}
}

// BenchmarkCreateEntity creates entities with the simulator's registry
// answering in 300 ms and its screening in 500 ms, and reports the create's
// p50 over the sum of the two providers' own p50s, measured directly in the
// same run with the same clients (target at most 1.1: the screening waits
// for the register's names, so the two run one after the other, and the
// create adds little to them).
func BenchmarkCreateEntity(b *testing.B) {
	const samples = 15
	ctx := context.Background()
	st := devstacktest.Store(b)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench create", []string{"SA"})
	if err != nil {
		b.Fatal(err)
	}
	key, err := createKey(ctx, e, acct.ID, []string{domain.PermEntityCreate})
	if err != nil {
		b.Fatal(err)
	}
	simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(),
		RegistryLatency: 300 * time.Millisecond, ScreeningLatency: 500 * time.Millisecond})
	defer simSrv.Close()
	p := simulatorProviders(simSrv.URL)
	srv := httptest.NewServer(newGateway(st, quietLogger(), p))
	defer srv.Close()
	runner := p.intake.(*checks.Runner)
	yente := runner.Screeners[checks.ProviderOpenSanctions]
	wathq := runner.Registries[checks.ProviderWathq]

	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var creates, lookups, screens, withParties, withFive []time.Duration
		for i := 0; i < samples; i++ {
			index := n*samples + i
			number := plainNumber(index)
			start := time.Now()
			rec, err := wathq.Lookup(ctx, number)
			if err != nil {
				b.Fatal(err)
			}
			lookups = append(lookups, time.Since(start))
			start = time.Now()
			q := checks.ScreeningQuery{Reference: "bench", RegistrationNumber: number, Jurisdiction: "SA",
				Names: []checks.ScreenedName{{Name: rec.Name, Source: domain.NameRegister}, {Name: rec.NameEn, Source: domain.NameRegisterLatin}}}
			if _, err := yente.Screen(ctx, q); err != nil {
				b.Fatal(err)
			}
			screens = append(screens, time.Since(start))

			creates = append(creates, timedCreate(b, srv.URL, key, number))
			// The same create for a register that lists parties (tens
			// digit 4): a partner, a holding company looked up in turn,
			// its two people, each of the four screened.
			withParties = append(withParties, timedCreate(b, srv.URL, key, fmt.Sprintf("72%06d40", index)))
			// Five partners, no company among them (hundreds digit 5):
			// their screenings run beside the entity's.
			withFive = append(withFive, timedCreate(b, srv.URL, key, fmt.Sprintf("73%05d540", index)))
		}
		b.ReportMetric(float64(p50(lookups).Microseconds())/1000, "registry-p50-ms")
		b.ReportMetric(float64(p50(screens).Microseconds())/1000, "screening-p50-ms")
		b.ReportMetric(float64(p50(creates).Microseconds())/1000, "create-p50-ms")
		b.ReportMetric(float64(p50(creates))/float64(p50(lookups)+p50(screens)), "create/(registry+screening)-p50(target<=1.1)")
		// A holding company's lookup comes after the register's, and its
		// people's screenings after that: the chain's lower bound is
		// (2 registry + screening) / (registry + screening).
		b.ReportMetric(float64(p50(withFive))/float64(p50(creates)), "create-5-parties/create-p50(target<=1.3)")
		b.ReportMetric(float64(p50(withParties))/float64(p50(creates)), "create-4-parties/create-p50")
		b.ReportMetric(float64(2*p50(lookups)+p50(screens))/float64(p50(lookups)+p50(screens)), "chain-bound(2registry+screening)/(registry+screening)")
	}
}

// plainNumber is the i-th of unified numbers the simulated register
// answers plainly: ending in 0 (active, no fault), its tens digit never 4
// (no party listed), each distinct.
func plainNumber(i int) string {
	if n := fmt.Sprintf("70%07d0", i); n[len(n)-2] != '4' {
		return n
	}
	return fmt.Sprintf("71%06d50", i)
}

// timedCreate creates a Saudi entity of the number with the documented
// body and says how long the create took.
func timedCreate(b *testing.B, base, key, number string) time.Duration {
	b.Helper()
	body := fmt.Sprintf(`{"entity":{"registration_number":%q,"country_code":"SA"}}`, number)
	req, _ := http.NewRequest("POST", base+"/api/v1/entities", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	took, resp := timed(b, req)
	if resp.StatusCode != 201 {
		b.Fatalf("create %s: %d", number, resp.StatusCode)
	}
	return took
}

// BenchmarkConcurrentCreates creates entities in one account from 1, 8 and
// 20 writers at once and reports, in one run, TransactWriteItems per create
// at each (target at most 1.05: creates never retry each other's
// transactions) and creates per second at 8 and 20 writers over 1 writer
// (target at least 1.5 at 8), with the simulator answering at once (only
// the commit turn, two requests, runs one at a time: claims, id
// reservations and rendering overlap) and with its registry at 300 ms and
// screening at 500 ms, as providers answer (the waits overlap).
func BenchmarkConcurrentCreates(b *testing.B) {
	ctx := context.Background()
	counter := &opCounter{}
	db := devstack.DB(counter.option)
	names := devstacktest.Tables(b, db)
	st := store.New(db, names)
	// The same tables through a client whose every request takes 4 ms more,
	// as a round trip to DynamoDB in the region does: DynamoDB Local on this
	// machine answers in well under a millisecond but applies one write at
	// a time, so on it alone more writers cannot go faster, whatever the
	// design. With the round trip, what runs one at a time (the commit
	// turn) shows against what overlaps.
	remote := store.New(devstack.DB(counter.option, roundTrip(4*time.Millisecond)), names)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench concurrent creates", []string{"SA"})
	if err != nil {
		b.Fatal(err)
	}
	key, err := createKey(ctx, e, acct.ID, []string{domain.PermEntityCreate})
	if err != nil {
		b.Fatal(err)
	}
	gateway := func(st *store.Store, latency time.Duration) *httptest.Server {
		simSrv := httptest.NewServer(&sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(),
			RegistryLatency: latency * 3, ScreeningLatency: latency * 5})
		b.Cleanup(simSrv.Close)
		srv := httptest.NewServer(newGateway(st, quietLogger(), simulatorProviders(simSrv.URL)))
		b.Cleanup(srv.Close)
		return srv
	}
	instant, slow, overNetwork := gateway(st, 0), gateway(st, 100*time.Millisecond), gateway(remote, 0)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}

	next := 0
	var mu sync.Mutex
	number := func() string {
		mu.Lock()
		defer mu.Unlock()
		next++
		return fmt.Sprintf("71%07d0", next)
	}
	// run creates perWriter entities from each of writers at once.
	run := func(srv *httptest.Server, writers, perWriter int) (perSecond, txPerCreate float64) {
		before := counter.count("TransactWriteItems")
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perWriter; i++ {
					body := fmt.Sprintf(`{"entity":{"registration_number":%q,"country_code":"SA"}}`, number())
					req, _ := http.NewRequest("POST", srv.URL+"/api/v1/entities", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+key)
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 201 {
						b.Errorf("create: %d", resp.StatusCode)
					}
				}
			}()
		}
		wg.Wait()
		creates := writers * perWriter
		return float64(creates) / time.Since(start).Seconds(), float64(counter.count("TransactWriteItems")-before) / float64(creates)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		one, tx1 := run(instant, 1, 40)
		eight, tx8 := run(instant, 8, 5)
		netOne, _ := run(overNetwork, 1, 20)
		netEight, netTx8 := run(overNetwork, 8, 5)
		twenty, tx20 := run(instant, 20, 4)
		slowOne, _ := run(slow, 1, 6)
		slowTwenty, _ := run(slow, 20, 2)
		b.ReportMetric(tx1, "tx/create@1")
		b.ReportMetric(tx8, "tx/create@8(target<=1.05)")
		b.ReportMetric(tx20, "tx/create@20(target<=1.05)")
		b.ReportMetric(one, "creates/s@1")
		b.ReportMetric(eight/one, "creates/s@8÷@1-on-local")
		b.ReportMetric(netEight/netOne, "creates/s@8÷@1-4ms-round-trips(target>=1.5)")
		b.ReportMetric(netTx8, "tx/create@8-4ms-round-trips")
		b.ReportMetric(twenty/one, "creates/s@20÷@1")
		b.ReportMetric(slowTwenty/slowOne, "creates/s@20÷@1-with-providers")
	}
}

// BenchmarkETag measures what a conditional get-one saves: the p50 of a 304
// (If-None-Match naming the current tag) over the p50 of a 200 for the same
// entity (target: at most 0.8), for JSON and Markdown. The tag is of the
// dossier's revision (dossier.ETag), so a 304 reads the entity's item alone,
// where a 200 reads it, the checks and reviews, and the item again.
func BenchmarkETag(b *testing.B) {
	ctx := context.Background()
	st := devstacktest.Store(b)
	e := &env{store: st, log: quietLogger()}
	acct, err := createAccount(ctx, e, "Bench ETag", []string{"SA"})
	if err != nil {
		b.Fatal(err)
	}
	created, err := st.CreateEntity(ctx, withAccount(richDetail("7000000444"), acct.ID))
	if err != nil {
		b.Fatal(err)
	}
	key, err := createKey(ctx, e, acct.ID, []string{domain.PermEntityView})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(newGateway(st, quietLogger(), providers{}))
	b.Cleanup(srv.Close)
	get := func(path, ifNoneMatch string, want int) (time.Duration, string) {
		return timedGet(b, srv.URL+path, key, ifNoneMatch, want)
	}
	for _, form := range []struct{ name, path string }{
		{"JSON", "/api/v1/entities/" + strconv.FormatInt(created.Entity.ID, 10)},
		{"Markdown", "/api/v1/entities/" + strconv.FormatInt(created.Entity.ID, 10) + ".md"},
	} {
		b.Run(form.name, func(b *testing.B) {
			_, tag := get(form.path, "", 200)
			for i := 0; i < 20; i++ { // warm up connections and DynamoDB Local
				get(form.path, "", 200)
				get(form.path, tag, 304)
			}
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				var full, notModified []time.Duration
				for i := 0; i < benchSamples; i++ { // alternating, so both see the same machine
					d, _ := get(form.path, "", 200)
					full = append(full, d)
					d, _ = get(form.path, tag, 304)
					notModified = append(notModified, d)
				}
				b.ReportMetric(float64(p50(full).Microseconds())/1000, "200-p50-ms")
				b.ReportMetric(float64(p50(notModified).Microseconds())/1000, "304-p50-ms")
				b.ReportMetric(float64(p50(notModified))/float64(p50(full)), "304/200-p50(target<=0.8)")
			}
		})
	}
}
