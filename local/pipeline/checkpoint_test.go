package pipeline

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
)

// checkpoints makes a checkpoint table of the test's own, dropped at its end.
func checkpoints(t *testing.T) *Checkpoints {
	t.Helper()
	ddb, _, _ := reviewsTable(t)
	c, err := EnsureCheckpoints(context.Background(), ddb, devstack.UniquePrefix(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Drop(context.Background()) })
	// A second call finds the table and is fine.
	if _, err := EnsureCheckpoints(context.Background(), ddb, devstack.UniquePrefix(t.Name())); err != nil {
		t.Fatal(err)
	}
	return c
}

// A poller stopped and a new one started over the same checkpoint table
// hand the handler every change exactly once between them: the second
// resumes after what the first had accepted, and reads what was written
// while none ran.
func TestStreamPollerResumesFromItsCheckpoint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// midBatch stops the first poller while its handler is running.
		midBatch bool
		// poison is a review the handler always fails: it goes to the
		// on-failure destination once and is never handled again.
		poison int
	}{
		{name: "stopped when idle"},
		{name: "stopped during a batch", midBatch: true},
		{name: "a record given up on", poison: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ddb, streams, table := reviewsTable(t)
			cps := checkpoints(t)
			var failed recorder[string]
			poller := func(handled *recorder[int], inBatch chan<- struct{}) *StreamPoller {
				return &StreamPoller{
					Streams: streams, DB: ddb, Table: table, Checkpoints: cps,
					Source: deploy.StreamSource{BatchSize: 2, MaxRetries: 0},
					Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
						if inBatch != nil {
							inBatch <- struct{}{}
							time.Sleep(300 * time.Millisecond) // stopped meanwhile
						}
						var resp events.DynamoDBEventResponse
						for _, r := range ev.Records {
							if reviewID(r) == c.poison {
								resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
								return resp, nil // the records after it come again
							}
							handled.add(reviewID(r))
						}
						return resp, nil
					},
					OnFailure: func(ctx context.Context, f FailureRecord) error {
						failed.add(f.DDBStreamBatchInfo.StartSequenceNumber)
						return nil
					},
					Interval: 20 * time.Millisecond, RetryBackoff: 10 * time.Millisecond, Log: testLog(),
				}
			}
			for id := 1; id <= 5; id++ {
				putReview(t, ddb, table, id, nil)
			}

			var first recorder[int]
			var inBatch chan struct{}
			if c.midBatch {
				inBatch = make(chan struct{}, 100)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- poller(&first, inBatch).Run(ctx) }()
			if c.midBatch {
				<-inBatch
			} else {
				waitFor(t, 20*time.Second, "the first poller to handle reviews 1-5", func() bool {
					return len(first.all())+len(failed.all()) >= 5
				})
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Run did not return after its context ended")
			}
			if c.midBatch {
				if got := first.all(); !slices.Equal(got, []int{1, 2}) {
					t.Fatalf("stopped during its first batch, the first poller handled %v, want that batch finished: [1 2]", got)
				}
			}

			// Written while no poller runs.
			for id := 6; id <= 10; id++ {
				putReview(t, ddb, table, id, nil)
			}
			var second recorder[int]
			run(t, poller(&second, nil).Run)
			want := 10
			if c.poison != 0 {
				want--
			}
			waitFor(t, 20*time.Second, "every review handled", func() bool { return len(first.all())+len(second.all()) >= want })
			time.Sleep(300 * time.Millisecond) // anything handled twice would arrive by now

			seen := map[int]int{}
			for _, id := range append(first.all(), second.all()...) {
				seen[id]++
			}
			for id := 1; id <= 10; id++ {
				switch {
				case id == c.poison && seen[id] != 0:
					t.Errorf("review %d (failing) handled %d times", id, seen[id])
				case id != c.poison && seen[id] != 1:
					t.Errorf("review %d handled %d times, want once (first poller %v, second %v)", id, seen[id], first.all(), second.all())
				}
			}
			if c.poison != 0 && len(failed.all()) != 1 {
				t.Errorf("on-failure records %v, want one", failed.all())
			}
			if c.poison == 0 && len(failed.all()) != 0 {
				t.Errorf("on-failure records %v, want none", failed.all())
			}
		})
	}
}

// The checkpoint table round-trips positions, per stream and shard.
func TestCheckpointsSaveAndLoad(t *testing.T) {
	t.Parallel()
	cps := checkpoints(t)
	ctx := context.Background()
	saves := []struct {
		stream, shard string
		cp            Checkpoint
	}{
		{"arn:a", "shard-1", Checkpoint{SequenceNumber: "100"}},
		{"arn:a", "shard-1", Checkpoint{SequenceNumber: "200"}}, // moves on
		{"arn:a", "shard-2", Checkpoint{SequenceNumber: "300", Finished: true}},
		{"arn:a", "shard-3", Checkpoint{Finished: true}}, // closed with no record
		{"arn:b", "shard-1", Checkpoint{SequenceNumber: "9"}},
	}
	for _, s := range saves {
		if err := cps.Save(ctx, s.stream, s.shard, s.cp); err != nil {
			t.Fatal(err)
		}
	}
	for stream, want := range map[string]map[string]Checkpoint{
		"arn:a": {"shard-1": {SequenceNumber: "200"}, "shard-2": {SequenceNumber: "300", Finished: true}, "shard-3": {Finished: true}},
		"arn:b": {"shard-1": {SequenceNumber: "9"}},
		"arn:c": {},
	} {
		got, err := cps.Load(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", stream, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s: %+v, want %+v", stream, k, got[k], v)
			}
		}
	}
}
