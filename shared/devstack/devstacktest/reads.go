package devstacktest

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Reads counts a DynamoDB client's requests, by operation, and the items
// they read: what the store's cost tests pin and the benchmarks report.
// Option is the client option that counts.
type Reads struct {
	mu       sync.Mutex
	requests map[string]int
	items    int
}

// Option counts every request the client makes (once per call, after the
// SDK's retries).
func (c *Reads) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("count-reads", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.requests == nil {
				c.requests = map[string]int{}
			}
			switch v := out.Result.(type) {
			case *dynamodb.QueryOutput:
				// Items read and paid for, a filter's drops included.
				c.requests["Query"]++
				c.items += int(v.ScannedCount)
			case *dynamodb.GetItemOutput:
				c.requests["GetItem"]++
				if v.Item != nil {
					c.items++
				}
			case *dynamodb.BatchGetItemOutput:
				c.requests["BatchGetItem"]++
				for _, items := range v.Responses {
					c.items += len(items)
				}
			case *dynamodb.ScanOutput:
				c.requests["Scan"]++
				c.items += int(v.ScannedCount)
			default:
				c.requests[fmt.Sprintf("%T", v)]++
			}
			return out, md, err
		}), middleware.After)
	})
}

// Reset starts counting afresh.
func (c *Reads) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests, c.items = map[string]int{}, 0
}

// Requests is the requests counted since the last Reset, by operation.
func (c *Reads) Requests() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.requests))
	for k, v := range c.requests {
		out[k] = v
	}
	return out
}

// Total is the number of requests counted since the last Reset.
func (c *Reads) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.requests {
		n += v
	}
	return n
}

// Items is the number of items read since the last Reset.
func (c *Reads) Items() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items
}
