package main

// Keyed creates while DynamoDB stalls: the database is frozen (SIGSTOP) for
// longer than a create's budget, under a steady load of creates that retry
// with their Idempotency-Key as a careful client does. Whatever happened to
// each attempt, every key ends with one entity answered 201, every entity
// was answered to its key, and no number was created twice.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

func TestKeyedCreatesSurviveAFrozenDatabase(t *testing.T) {
	stack := startOwnStack(t)
	st, names := stack.store()
	e := &env{store: st, names: names, log: quietLogger()}
	acct := mustAccount(t, e, "Frozen", "SA")
	key := mustKey(t, e, acct, domain.PermEntityView, domain.PermEntityCreate)
	s := &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()}
	simSrv := httptest.NewServer(s)
	defer simSrv.Close()
	gw := httptest.NewServer(newGateway(st, quietLogger(), simulatorProviders(simSrv.URL)))
	defer gw.Close()

	type outcome struct {
		number   string
		entityID int64
		attempts map[int]int
	}
	var mu sync.Mutex
	results := map[string]*outcome{} // by Idempotency-Key
	client := checkedClient(t)
	client.Timeout = 40 * time.Second
	// createUntilAnswered retries one keyed create until it is answered for
	// good: 201 or a refusal other than 409 and 5xx.
	createUntilAnswered := func(idemKey, number string) {
		o := &outcome{number: number, attempts: map[int]int{}}
		body, _ := json.Marshal(map[string]any{"entity": map[string]any{"registration_number": number, "country_code": "SA"}})
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
			req, _ := http.NewRequest(http.MethodPost, gw.URL+"/api/v1/entities", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", idemKey)
			res, err := client.Do(req)
			if err != nil {
				o.attempts[0]++
				time.Sleep(time.Second)
				continue
			}
			var v struct {
				ID int64 `json:"id"`
			}
			json.NewDecoder(res.Body).Decode(&v)
			res.Body.Close()
			o.attempts[res.StatusCode]++
			if res.StatusCode == http.StatusCreated {
				o.entityID = v.ID
				break
			}
			if res.StatusCode != http.StatusConflict && res.StatusCode < 500 {
				t.Errorf("%s: answered %d", idemKey, res.StatusCode)
				break
			}
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(wait, 1)) * time.Second)
		}
		mu.Lock()
		results[idemKey] = o
		mu.Unlock()
	}

	// Four clients create steadily; the database freezes a second in, for
	// longer than a create's budget, then comes back.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				createUntilAnswered(fmt.Sprintf("order-%d-%d", c, i), fmt.Sprintf("70%02d%05d0", c, i))
				time.Sleep(50 * time.Millisecond)
			}
		}(c)
	}
	time.Sleep(time.Second)
	stack.freeze("dynamodb")
	frozen := time.Now()
	// Longer than the create's budget, so commits in flight lose their
	// answers; shorter than the idempotency lock's, so retries meet them.
	time.Sleep(deploy.CreateBudget + 4*time.Second)
	stack.resume("dynamodb")
	t.Logf("DynamoDB Local frozen for %v", time.Since(frozen).Round(time.Second))
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	// Every key was answered 201 once, with an entity that exists; every
	// entity was answered to its key; no number twice.
	byNumber := entitiesByNumber(t, st, names)
	entities := len(byNumber)
	statuses := map[int]int{}
	for k, o := range results {
		for s, n := range o.attempts {
			statuses[s] += n
		}
		if o.entityID == 0 {
			t.Errorf("%s (%s) never answered 201: %v", k, o.number, o.attempts)
			continue
		}
		if got := byNumber[o.number]; got != o.entityID {
			t.Errorf("%s was answered entity %d, but %s is entity %d", k, o.entityID, o.number, got)
		}
		delete(byNumber, o.number)
	}
	for number, id := range byNumber {
		t.Errorf("entity %d (%s) was never answered 201 to its key", id, number)
	}
	t.Logf("%d keys, %d entities; answers over all attempts: %v", len(results), entities, statuses)
	if statuses[http.StatusServiceUnavailable] == 0 {
		t.Error("no attempt met the frozen database: the test proved nothing")
	}
	for s := range statuses {
		if s >= 500 && s != http.StatusServiceUnavailable {
			t.Errorf("%d attempts answered %d: a stalled database is 503 with Retry-After", statuses[s], s)
		}
	}
}

// entitiesByNumber reads every entity of the tables, by registration
// number, failing the test for a number created twice.
func entitiesByNumber(t *testing.T, st *store.Store, names schema.Names) map[string]int64 {
	t.Helper()
	var items []struct {
		EntityID           int64  `dynamo:"entity_id"`
		RegistrationNumber string `dynamo:"registration_number"`
	}
	if err := st.DB().Table(names[schema.Entities]).Scan().Consistent(true).All(context.Background(), &items); err != nil {
		t.Fatal(err)
	}
	byNumber := map[string]int64{}
	for _, it := range items {
		if prev, dup := byNumber[it.RegistrationNumber]; dup {
			t.Errorf("number %s created twice: entities %d and %d", it.RegistrationNumber, prev, it.EntityID)
		}
		byNumber[it.RegistrationNumber] = it.EntityID
	}
	return byNumber
}
