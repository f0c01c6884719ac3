package main

// Creates under concurrency: many writers in one account never fail and
// commit with one transaction each; duplicates of one number call the
// providers once.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// opCounter counts DynamoDB requests by operation, every attempt (SDK
// retries included).
type opCounter struct {
	mu  sync.Mutex
	ops map[string]int
}

func (c *opCounter) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		// After the retry middleware: once per attempt.
		return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("count-attempts", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			c.mu.Lock()
			if c.ops == nil {
				c.ops = map[string]int{}
			}
			c.ops[awsmiddleware.GetOperationName(ctx)]++
			c.mu.Unlock()
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
	})
}

func (c *opCounter) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

func TestConcurrentCreatesInOneAccountNeverFail(t *testing.T) {
	for _, writers := range []int{8, 20} {
		t.Run(fmt.Sprintf("%d writers", writers), func(t *testing.T) {
			counter := &opCounter{}
			f := newCreateFixture(t, counter.option)
			const each = 3
			before := counter.count("TransactWriteItems")
			var wg sync.WaitGroup
			statuses := make(chan string, writers*each)
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						// Last digit 0: the simulator's registry and screening answer at once.
						number := fmt.Sprintf("70%04d%03d0", w, i)
						res := f.create(t, map[string]any{"registration_number": number, "country_code": "SA"})
						statuses <- fmt.Sprint(res.status)
						if res.status != 201 {
							t.Errorf("writer %d create %d: %d %s", w, i, res.status, res.body)
						}
					}
				}(w)
			}
			wg.Wait()
			creates := writers * each
			tx := counter.count("TransactWriteItems") - before
			perCreate := float64(tx) / float64(creates)
			t.Logf("%d writers: %d creates, %d TransactWriteItems (%.2f per create)", writers, creates, tx, perCreate)
			if perCreate > 1.05 {
				t.Errorf("%.2f TransactWriteItems per create, want at most 1.05", perCreate)
			}
			list := f.get(t, "/api/v1/entities?per_page=200")
			if list.status != 200 || !strings.Contains(string(list.body), fmt.Sprintf(`"total_count":%d`, creates)) {
				t.Errorf("list after the creates: %d %.200s", list.status, list.body)
			}
		})
	}
}

func TestDuplicateCreatesCallTheProvidersOnce(t *testing.T) {
	f := newCreateFixture(t)
	const n = 30
	var wg sync.WaitGroup
	statuses := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- f.create(t, map[string]any{"registration_number": "7000000510", "country_code": "SA"}).status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[422] != n-1 {
		t.Errorf("statuses = %v, want one 201 and %d 422", count, n-1)
	}
	if w, y := f.sim.Calls("wathq"), f.sim.Calls("opensanctions"); w != 1 || y != 1 {
		t.Errorf("provider calls: wathq %d, opensanctions %d; want one intake (1 and 1)", w, y)
	}
	// The same number with surrounding spaces and another case is the same
	// number: refused before any provider, and found by the filter.
	again := f.create(t, map[string]any{"registration_number": " 7000000510 ", "country_code": "sa"})
	if again.status != 422 || f.sim.Calls("wathq") != 1 {
		t.Errorf("a padded duplicate: %d %s, wathq calls %d", again.status, again.body, f.sim.Calls("wathq"))
	}
	list := f.get(t, "/api/v1/entities?registration_number=%207000000510%20")
	if list.status != 200 || !strings.Contains(string(list.body), `"total_count":1`) {
		t.Errorf("filter with spaces: %d %.200s", list.status, list.body)
	}
}

// roundTrip adds d to every DynamoDB request, once per attempt, as the
// network to DynamoDB would.
func roundTrip(d time.Duration) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("round-trip", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				time.Sleep(d)
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
		})
	}
}
