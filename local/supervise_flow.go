package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
)

// supervision runs the review flow's pollers under a supervisor of
// DynamoDB Local and ElasticMQ: `up` uses it, and so do the fault tests,
// against servers of their own.
type supervision struct {
	Flow        *reviewFlow
	Names       schema.Names
	QueuePrefix string
	// Endpoints of the servers (devstack.DynamoDBEndpoint() and
	// devstack.SQSEndpoint() for up).
	DynamoDBEndpoint, SQSEndpoint string
	// YenteURL, when set, is the screening engine's (devstack.YenteURL()):
	// watched too, and started again with the rest when it stops being
	// ready (its node with it). Nothing waits on it: a screening while it
	// is away fails as with a hosted engine down.
	YenteURL string
	// Restart starts what is not running: stack.sh start.
	Restart  func(ctx context.Context) error
	Interval time.Duration // between probes; default 500ms
	// MaxHold bounds how long a batch waits for a server to come back
	// before the pollers' own retry rules take over; default 2 minutes,
	// well inside the deliveries queue's 6-minute visibility.
	MaxHold time.Duration
	// BackHook, when set, runs first when a server answers again, before
	// anything is re-created (tests look at what the server came back with).
	BackHook func(ctx context.Context, name string)
	Log      *slog.Logger

	ddb       *dynamodb.Client
	queues    *sqs.Client
	mu        sync.Mutex
	streamARN string
	stopRead  context.CancelFunc // ends the stream poller's current run
	sup       *supervisor
}

// run starts the pollers and the supervisor; stop ends them and waits.
func (sv *supervision) run(ctx context.Context) (stop func()) {
	log := sv.log()
	// Probes and recovery make one attempt per call: the supervisor's own
	// rhythm is the retry, and a probe must fail fast.
	sv.ddb = dynamodb.NewFromConfig(devstack.AWSConfig(), func(o *dynamodb.Options) {
		o.BaseEndpoint, o.RetryMaxAttempts = aws.String(sv.DynamoDBEndpoint), 1
	})
	sv.queues = sqs.NewFromConfig(devstack.AWSConfig(), func(o *sqs.Options) {
		o.BaseEndpoint, o.RetryMaxAttempts = aws.String(sv.SQSEndpoint), 1
	})
	sv.streamARN, _ = sv.currentStreamARN(ctx)
	watch := []watched{
		{Name: "dynamodb", Endpoint: sv.DynamoDBEndpoint, Probe: sv.probeDynamoDB},
		{Name: "elasticmq", Endpoint: sv.SQSEndpoint, Probe: sv.probeElasticMQ},
	}
	if sv.YenteURL != "" {
		watch = append(watch, watched{Name: "yente", Endpoint: sv.YenteURL, Probe: probeYente(sv.YenteURL)})
	}
	sv.sup = &supervisor{
		Watch:    watch,
		Interval: sv.Interval,
		Restart:  sv.Restart,
		OnBack:   sv.recover,
		Log:      log,
	}
	f := sv.Flow
	f.Streams.Handler = hold(f.Streams.Handler, streamRetry, sv.ready, sv.maxHold(), log.With("function", "review-events"))
	f.Queue.Handler = hold(f.Queue.Handler, queueRetry, sv.ready, sv.maxHold(), log.With("function", "webhook-delivery"))
	for _, p := range f.Exports {
		p.Handler = hold(p.Handler, streamRetry, sv.ready, sv.maxHold(), log.With("function", "audit-export"))
	}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { sv.sup.Run(ctx) })
	wg.Go(func() { sv.readStream(ctx) })
	wg.Go(func() {
		// Run fails only when the queue cannot be found as it starts
		// (ElasticMQ away at that moment): try again.
		for ctx.Err() == nil {
			if err := f.Queue.Run(ctx); err != nil && ctx.Err() == nil {
				log.Warn("queue poller could not start; retrying", "function", "webhook-delivery", "error", err.Error())
				pipeline.Sleep(ctx, time.Second)
			}
		}
	})
	for _, p := range f.Exports {
		// audit-export's streams: a poller that cannot start (DynamoDB
		// away at that moment) tries again. After DynamoDB Local comes
		// back in memory its tables, and streams, are new: up must be
		// started again for these (its data on disk keeps them).
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := p.Run(ctx); err != nil && ctx.Err() == nil {
					log.Warn("stream poller could not start; retrying", "function", "audit-export", "table", p.Table, "error", err.Error())
					pipeline.Sleep(ctx, time.Second)
				}
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// readStream runs the stream poller, again each time recover ends its run.
func (sv *supervision) readStream(ctx context.Context) {
	for ctx.Err() == nil {
		rctx, cancel := context.WithCancel(ctx)
		sv.mu.Lock()
		sv.stopRead = cancel
		sv.mu.Unlock()
		err := sv.Flow.Streams.Run(rctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			sv.log().Warn("stream poller could not start; retrying", "function", "review-events", "error", err.Error())
			pipeline.Sleep(ctx, time.Second)
		}
	}
}

// recover is the supervisor's OnBack: the server answers again.
func (sv *supervision) recover(ctx context.Context, name string) error {
	if sv.BackHook != nil {
		sv.BackHook(ctx, name)
	}
	switch name {
	case "dynamodb":
		// With its data on disk the tables are there already; in memory
		// they are gone, and Ensure makes them again (empty).
		if err := devstack.EnsureTables(ctx, sv.ddb, sv.Names); err != nil {
			return fmt.Errorf("ensure tables: %w", err)
		}
		arn, err := sv.currentStreamARN(ctx)
		if err != nil {
			return err
		}
		sv.mu.Lock()
		changed, stop := arn != sv.streamARN, sv.stopRead
		sv.streamARN = arn
		sv.mu.Unlock()
		if changed && stop != nil {
			// A table made again has a new stream, which the poller, still
			// reading the old one, would never find: start it again.
			sv.log().Warn("reviews stream replaced (DynamoDB Local lost its data); reading the new one", "stream_arn", arn)
			stop()
		}
	case "elasticmq":
		// Declared in its config, the queues exist already; this brings
		// their attributes (retention) to the catalogue's, and makes them
		// when the config declared another prefix.
		if _, err := pipeline.EnsureQueues(ctx, sv.queues, sv.QueuePrefix); err != nil {
			return fmt.Errorf("ensure queues: %w", err)
		}
	}
	return nil
}

func (sv *supervision) currentStreamARN(ctx context.Context) (string, error) {
	out, err := sv.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(sv.Names[schema.Reviews])})
	if err != nil {
		return "", fmt.Errorf("describe reviews table: %w", err)
	}
	return aws.ToString(out.Table.LatestStreamArn), nil
}

func (sv *supervision) probeDynamoDB(ctx context.Context) error {
	_, err := sv.ddb.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	return err
}

func (sv *supervision) probeElasticMQ(ctx context.Context) error {
	_, err := sv.queues.ListQueues(ctx, &sqs.ListQueuesInput{MaxResults: aws.Int32(1)})
	return err
}

// probeYente answers nil while yente says it is ready (/readyz: its index
// in place, its node answering).
func probeYente(base string) func(ctx context.Context) error {
	client := &http.Client{}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/readyz", nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("yente /readyz: %s", res.Status)
		}
		return nil
	}
}

// ready: both servers answer now.
func (sv *supervision) ready(ctx context.Context) bool {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return sv.probeDynamoDB(pctx) == nil && sv.probeElasticMQ(pctx) == nil
}

func (sv *supervision) maxHold() time.Duration { return durationOr(sv.MaxHold, 2*time.Minute) }

func (sv *supervision) log() *slog.Logger {
	if sv.Log != nil {
		return sv.Log
	}
	return slog.Default()
}

// hold wraps a poller's handler: a batch that fails while a server is away
// waits for it to come back, then the failed part is tried again. Without
// it a 10-second ElasticMQ restart spends a stream record's five retries
// (one a second) and sends it to the on-failure queue, and a delivery
// failing while DynamoDB is away waits out its 6-minute visibility. A
// failure with both servers answering is the handler's own: it is returned
// as it is, for the poller's retry rules. Everything the handlers do is
// idempotent (delivery ids derive from the event), so trying again is safe.
func hold[E, R any](h func(context.Context, E) (R, error), retry func(E, R, error) (E, bool),
	ready func(context.Context) bool, maxHold time.Duration, log *slog.Logger) func(context.Context, E) (R, error) {
	return func(ctx context.Context, ev E) (R, error) {
		var deadline time.Time
		for {
			resp, err := h(ctx, ev)
			next, failed := retry(ev, resp, err)
			if !failed || ctx.Err() != nil || ready(ctx) {
				return resp, err
			}
			if deadline.IsZero() {
				deadline = time.Now().Add(maxHold)
				log.Warn("batch failed while a server is away: holding it until the server is back")
			}
			for !ready(ctx) {
				if time.Now().After(deadline) || !pipeline.Sleep(ctx, 250*time.Millisecond) {
					return resp, err
				}
			}
			log.Info("server back: trying the held batch again")
			ev = next
		}
	}
}

// streamRetry: what of a stream batch to try again, from its first failed
// record on (the records before it are done, as the poller would count
// them).
func streamRetry(ev events.DynamoDBEvent, resp events.DynamoDBEventResponse, err error) (events.DynamoDBEvent, bool) {
	failed, retry := failedItems(resp.BatchItemFailures, err)
	if failed == nil {
		return ev, retry
	}
	for i, r := range ev.Records {
		if failed[r.Change.SequenceNumber] {
			return events.DynamoDBEvent{Records: ev.Records[i:]}, true
		}
	}
	return ev, true // an identifier naming no record: the whole batch failed
}

// queueRetry: the messages of an SQS batch that failed.
func queueRetry(ev events.SQSEvent, resp events.SQSEventResponse, err error) (events.SQSEvent, bool) {
	failed, retry := failedItems(resp.BatchItemFailures, err)
	if failed == nil {
		return ev, retry
	}
	var out events.SQSEvent
	for _, m := range ev.Records {
		if failed[m.MessageId] {
			out.Records = append(out.Records, m)
		}
	}
	if len(out.Records) == 0 {
		return ev, true
	}
	return out, true
}

// batchItemFailure is the failure entry of a stream or a queue batch
// answer (the two have the same shape).
type batchItemFailure interface {
	~struct {
		ItemIdentifier string `json:"itemIdentifier"`
	}
}

// failedItems reads a batch answer: the identifiers it reports failed, or,
// when it names none, whether the whole batch is to be retried (an error)
// or done.
func failedItems[F batchItemFailure](failures []F, err error) (map[string]bool, bool) {
	if err != nil || len(failures) == 0 {
		return nil, err != nil
	}
	failed := map[string]bool{}
	for _, f := range failures {
		failed[events.SQSBatchItemFailure(f).ItemIdentifier] = true
	}
	return failed, true
}

// stackRestart starts, through local/stack/stack.sh start, whatever is not
// running, with this process's environment (the data directories `make
// local` set): what `up` calls when a server is lost.
func stackRestart(log *slog.Logger) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		root, err := devstack.RepoRoot()
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "local", "stack", "stack.sh"), "start")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		log.Info("local/stack/stack.sh start", "output", string(out))
		if err != nil {
			return errors.New("local/stack/stack.sh start: " + err.Error())
		}
		return nil
	}
}
