package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// reviewFlow is the events path run locally for real: the reviews table's
// stream in DynamoDB Local feeds the review-events handler, the deliveries
// queue in ElasticMQ feeds the webhook-delivery handler, each built by
// boot's table as its functions/<name>/main.go builds it.
type reviewFlow struct {
	SQS       *sqs.Client
	QueueURLs map[string]string // deploy queue id → URL
	Streams   *pipeline.StreamPoller
	Queue     *pipeline.QueuePoller
	// Exports are audit-export's stream pollers, one per table it is fed
	// by (the audit and evidence tables), locking into the records
	// directory; none without flowOptions.RecordsDir.
	Exports []*pipeline.StreamPoller
	// Checkpoints is the stream poller's position per shard, kept in
	// DynamoDB Local beside the tables (<table prefix>stream-checkpoints) so
	// a restarted `up` resumes where it stopped.
	Checkpoints *pipeline.Checkpoints
}

// flowOptions tunes the flow (tests shorten the polls).
type flowOptions struct {
	QueuePrefix  string
	Allow        webhooks.AllowList
	PollInterval time.Duration
	// ClientTimeout is the delivery timeout (webhooks.DefaultTimeout).
	ClientTimeout time.Duration
	RetryBackoff  time.Duration
	// RecordsDir is the records bucket's stand-in audit-export locks into
	// (records.Dir); empty: no export.
	RecordsDir string
}

// newReviewFlow creates the queues if missing and wires both handlers to
// their pollers.
func newReviewFlow(ctx context.Context, st *store.Store, names schema.Names, log *slog.Logger, o flowOptions) (*reviewFlow, error) {
	client := pipeline.SQSClient(devstack.SQSEndpoint())
	urls, err := pipeline.EnsureQueues(ctx, client, o.QueuePrefix)
	if err != nil {
		return nil, fmt.Errorf("create queues: %w", err)
	}
	emitter, err := catalogued("review-events")
	if err != nil {
		return nil, err
	}
	sender, err := catalogued("webhook-delivery")
	if err != nil {
		return nil, err
	}
	// No metrics: CloudWatch is not here to read them.
	d := boot.Deps{
		Store: st, Log: log, Clock: domain.SystemClock, Allow: o.Allow, WebhookTimeout: o.ClientTimeout,
		Deliveries: &delivery.SQSQueue{Client: client, URL: urls[deploy.QueueDeliveries]},
	}
	emit, err := boot.As[boot.StreamHandler](emitter.Name, d)
	if err != nil {
		return nil, err
	}
	deliver, err := boot.As[boot.QueueHandler](sender.Name, d)
	if err != nil {
		return nil, err
	}
	f := &reviewFlow{SQS: client, QueueURLs: urls}
	endpoint := devstack.DynamoDBEndpoint()
	db := dynamodb.NewFromConfig(devstack.AWSConfig(), func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
	// The checkpoint table goes with the tables' prefix: another prefix is
	// another set of tables, with streams and positions of its own.
	f.Checkpoints, err = pipeline.EnsureCheckpoints(ctx, db, strings.TrimSuffix(names[schema.Reviews], schema.Reviews))
	if err != nil {
		return nil, err
	}
	f.Streams = &pipeline.StreamPoller{
		Streams: dynamodbstreams.NewFromConfig(devstack.AWSConfig(), func(o *dynamodbstreams.Options) {
			o.BaseEndpoint = aws.String(endpoint)
		}),
		DB:           db,
		Checkpoints:  f.Checkpoints,
		Timeout:      time.Duration(emitter.TimeoutSeconds) * time.Second,
		Table:        names[schema.Reviews],
		Source:       emitter.Streams[0],
		Handler:      emit,
		OnFailure:    pipeline.FailureQueue(client, urls[emitter.Streams[0].OnFailure]),
		Interval:     o.PollInterval,
		RetryBackoff: o.RetryBackoff,
		FunctionARN:  pipeline.FunctionARN(emitter.Name),
		Log:          log,
	}
	if o.RecordsDir != "" {
		if f.Exports, err = exportPollers(f, names, log, o, urls, d); err != nil {
			return nil, err
		}
	}
	f.Queue = &pipeline.QueuePoller{
		SQS: client, URL: urls[deploy.QueueDeliveries], BatchSize: sender.Queue.BatchSize, WaitSeconds: 1,
		Handler: deliver, FunctionARN: pipeline.FunctionARN(sender.Name), Log: log,
		Concurrency: deliveryPollers, Timeout: time.Duration(sender.TimeoutSeconds) * time.Second,
	}
	return f, nil
}

// exportPollers feed audit-export from each of its streams, as its event
// source mappings do, into the records directory.
func exportPollers(f *reviewFlow, names schema.Names, log *slog.Logger, o flowOptions, urls map[string]string, d boot.Deps) ([]*pipeline.StreamPoller, error) {
	fn, err := catalogued("audit-export")
	if err != nil {
		return nil, err
	}
	d.Records = records.Dir{Root: o.RecordsDir}
	d.Blobs = localBlobs()
	d.Passkeys = localPasskeys()
	export, err := boot.As[boot.RecordsHandler](fn.Name, d)
	if err != nil {
		return nil, err
	}
	handle := streamRecordsHandler(export)
	var out []*pipeline.StreamPoller
	for _, src := range fn.Streams {
		out = append(out, &pipeline.StreamPoller{
			Streams: f.Streams.Streams, DB: f.Streams.DB, Checkpoints: f.Checkpoints,
			Timeout: time.Duration(fn.TimeoutSeconds) * time.Second,
			Table:   names[src.Table], Source: src, Handler: handle,
			OnFailure: pipeline.FailureQueue(f.SQS, urls[src.OnFailure]),
			Interval:  o.PollInterval, RetryBackoff: o.RetryBackoff,
			FunctionARN: pipeline.FunctionARN(fn.Name), Log: log,
		})
	}
	return out, nil
}

// streamRecordsHandler feeds a stream batch to audit-export's handler as
// Lambda does, as the event's JSON (the one handler tells a batch from the
// schedule's event by its shape).
func streamRecordsHandler(h boot.RecordsHandler) func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		raw, err := json.Marshal(ev)
		if err != nil {
			return events.DynamoDBEventResponse{}, err
		}
		out, err := h(ctx, raw)
		if err != nil {
			return events.DynamoDBEventResponse{}, err
		}
		resp, ok := out.(events.DynamoDBEventResponse)
		if !ok {
			return events.DynamoDBEventResponse{}, fmt.Errorf("audit-export answered a stream batch with a %T", out)
		}
		return resp, nil
	}
}

// catalogued is the function's catalogue entry; a name it lacks is an
// error, never a zero timeout.
func catalogued(name string) (deploy.Function, error) {
	f, ok := deploy.Lookup(name)
	if !ok {
		return deploy.Function{}, fmt.Errorf("%q is not a function of shared/deploy", name)
	}
	return f, nil
}

// deliveryPollers is how many batches of deliveries run side by side, as
// Lambda runs several invocations of webhook-delivery at once: a batch held
// by a receiver that answers slowly never holds up the next messages.
const deliveryPollers = 16

// run polls until ctx ends or stop is called. stop (or ending ctx, then
// calling stop) is how `up` shuts the flow down on SIGTERM or Ctrl-C, and
// stop returns once both pollers have drained: no new stream batch or queue
// message is taken; the invocations under way finish (a POST up to the
// client's timeout), their deliveries are recorded, their messages deleted
// and the stream's checkpoint stored. With the default timeouts that is at
// most about a POST's 10 s, plus the queue's 1 s long poll.
func (f *reviewFlow) run(ctx context.Context, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	runs := map[string]func(context.Context) error{"review-events": f.Streams.Run, "webhook-delivery": f.Queue.Run}
	for _, p := range f.Exports {
		runs["audit-export "+p.Table] = p.Run
	}
	for name, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(ctx); err != nil && ctx.Err() == nil {
				log.Error("poller stopped", "function", name, "error", err.Error())
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}
