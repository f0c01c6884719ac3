package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/deploy"
)

func streamARN(t *testing.T, ddb *dynamodb.Client, table string) string {
	t.Helper()
	out, err := ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Table.LatestStreamArn)
}

func putReview(t *testing.T, ddb *dynamodb.Client, table string, id int, extra map[string]dtypes.AttributeValue) {
	t.Helper()
	item := map[string]dtypes.AttributeValue{"account_id": num("1"), "review_id": num(strconv.Itoa(id))}
	for k, v := range extra {
		item[k] = v
	}
	if _, err := ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func reviewID(r events.DynamoDBEventRecord) int {
	n, _ := strconv.Atoi(r.Change.Keys["review_id"].Number())
	return n
}

// jsonEqual compares two values by their JSON, which is what Lambda would
// hand the function.
func jsonEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	var g, w any
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	json.Unmarshal(gb, &g)
	json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

func TestStreamPollerDeliversChangesInOrder(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	ctx := context.Background()
	arn := streamArnOrFail(t, ddb, table)

	// Every attribute type, to check the conversion; sets of one element,
	// as DynamoDB does not keep a set's order.
	rich := map[string]dtypes.AttributeValue{
		"status": str("open"),
		"n":      num("12.5"),
		"ok":     &dtypes.AttributeValueMemberBOOL{Value: true},
		"none":   &dtypes.AttributeValueMemberNULL{Value: true},
		"bin":    &dtypes.AttributeValueMemberB{Value: []byte{1, 2, 3}},
		"ss":     &dtypes.AttributeValueMemberSS{Value: []string{"a"}},
		"ns":     &dtypes.AttributeValueMemberNS{Value: []string{"7"}},
		"bs":     &dtypes.AttributeValueMemberBS{Value: [][]byte{{9}}},
		"list":   &dtypes.AttributeValueMemberL{Value: []dtypes.AttributeValue{str("x"), num("1")}},
		// Empty maps, which DynamoDB Local writes wrongly (see fixEmptyMaps).
		"map": &dtypes.AttributeValueMemberM{Value: map[string]dtypes.AttributeValue{
			"k": str("v"), "inner": &dtypes.AttributeValueMemberM{Value: map[string]dtypes.AttributeValue{}},
			"l": &dtypes.AttributeValueMemberL{Value: []dtypes.AttributeValue{&dtypes.AttributeValueMemberM{Value: map[string]dtypes.AttributeValue{}}, str("z")}},
		}},
		"empty": &dtypes.AttributeValueMemberM{Value: map[string]dtypes.AttributeValue{}},
	}
	wantRich := map[string]events.DynamoDBAttributeValue{
		"account_id": events.NewNumberAttribute("1"),
		"review_id":  events.NewNumberAttribute("1"),
		"status":     events.NewStringAttribute("open"),
		"n":          events.NewNumberAttribute("12.5"),
		"ok":         events.NewBooleanAttribute(true),
		"none":       events.NewNullAttribute(),
		"bin":        events.NewBinaryAttribute([]byte{1, 2, 3}),
		"ss":         events.NewStringSetAttribute([]string{"a"}),
		"ns":         events.NewNumberSetAttribute([]string{"7"}),
		"bs":         events.NewBinarySetAttribute([][]byte{{9}}),
		"list":       events.NewListAttribute([]events.DynamoDBAttributeValue{events.NewStringAttribute("x"), events.NewNumberAttribute("1")}),
		"map": events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{
			"k": events.NewStringAttribute("v"), "inner": events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{}),
			"l": events.NewListAttribute([]events.DynamoDBAttributeValue{events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{}), events.NewStringAttribute("z")}),
		}),
		"empty": events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{}),
	}

	// Written before the poller starts: TRIM_HORIZON must still give them.
	putReview(t, ddb, table, 1, rich)
	putReview(t, ddb, table, 2, map[string]dtypes.AttributeValue{"status": str("open")})

	var recs recorder[events.DynamoDBEventRecord]
	var sizes recorder[int]
	p := &StreamPoller{
		Streams: streams, DB: ddb, Table: table,
		Source: deploy.StreamSource{BatchSize: 2, MaxRetries: 2},
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			sizes.add(len(ev.Records))
			recs.add(ev.Records...)
			return events.DynamoDBEventResponse{}, nil
		},
		Interval: 50 * time.Millisecond, RetryBackoff: 10 * time.Millisecond, Log: testLog(),
	}
	run(t, p.Run)

	// Written while it runs.
	modified := map[string]dtypes.AttributeValue{}
	for k, v := range rich {
		modified[k] = v
	}
	modified["status"] = str("completed")
	putReview(t, ddb, table, 1, modified)
	if _, err := ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]dtypes.AttributeValue{"account_id": num("1"), "review_id": num("2")}}); err != nil {
		t.Fatal(err)
	}
	putReview(t, ddb, table, 3, nil)

	start := time.Now()
	waitFor(t, 20*time.Second, "5 stream records", func() bool { return len(recs.all()) >= 5 })
	t.Logf("last record handled %v after its write", time.Since(start))
	time.Sleep(300 * time.Millisecond) // nothing more should come
	got := recs.all()
	if len(got) != 5 {
		t.Fatalf("%d records, want 5", len(got))
	}
	for _, n := range sizes.all() {
		if n < 1 || n > 2 {
			t.Errorf("a batch of %d records, want 1 or 2", n)
		}
	}

	type change struct {
		Name string
		ID   int
	}
	var order []change
	for _, r := range got {
		order = append(order, change{r.EventName, reviewID(r)})
	}
	want := []change{{"INSERT", 1}, {"INSERT", 2}, {"MODIFY", 1}, {"REMOVE", 2}, {"INSERT", 3}}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("changes %v, want %v", order, want)
	}

	prev := new(big.Int)
	for i, r := range got {
		if r.EventSource != "aws:dynamodb" || r.EventSourceArn != arn || r.AWSRegion == "" || r.EventID == "" || r.EventVersion == "" {
			t.Errorf("record %d: source %q, ARN %q (want %q), region %q, id %q, version %q", i, r.EventSource, r.EventSourceArn, arn, r.AWSRegion, r.EventID, r.EventVersion)
		}
		c := r.Change
		if c.StreamViewType != "NEW_AND_OLD_IMAGES" || c.SizeBytes <= 0 {
			t.Errorf("record %d: view type %q, size %d", i, c.StreamViewType, c.SizeBytes)
		}
		if age := time.Since(c.ApproximateCreationDateTime.Time); age < 0 || age > 5*time.Minute {
			t.Errorf("record %d: created %v", i, c.ApproximateCreationDateTime.Time)
		}
		s, ok := new(big.Int).SetString(c.SequenceNumber, 10)
		if !ok || s.Cmp(prev) <= 0 {
			t.Errorf("record %d: sequence number %q does not follow %v", i, c.SequenceNumber, prev)
		}
		prev = s
		jsonEqual(t, "keys", c.Keys, map[string]events.DynamoDBAttributeValue{
			"account_id": events.NewNumberAttribute("1"), "review_id": events.NewNumberAttribute(strconv.Itoa(order[i].ID)),
		})
	}

	// Images: an INSERT has only the new one, a REMOVE only the old one.
	jsonEqual(t, "insert new image", got[0].Change.NewImage, wantRich)
	if got[0].Change.OldImage != nil {
		t.Errorf("insert has an old image: %v", got[0].Change.OldImage)
	}
	wantModified := map[string]events.DynamoDBAttributeValue{}
	for k, v := range wantRich {
		wantModified[k] = v
	}
	wantModified["status"] = events.NewStringAttribute("completed")
	jsonEqual(t, "modify old image", got[2].Change.OldImage, wantRich)
	jsonEqual(t, "modify new image", got[2].Change.NewImage, wantModified)
	if got[3].Change.NewImage != nil || got[3].Change.OldImage["status"].String() != "open" {
		t.Errorf("remove: new image %v, old image %v", got[3].Change.NewImage, got[3].Change.OldImage)
	}
}

func streamArnOrFail(t *testing.T, ddb *dynamodb.Client, table string) string {
	t.Helper()
	arn := streamARN(t, ddb, table)
	if arn == "" {
		t.Fatalf("table %s has no stream", table)
	}
	return arn
}

// A handler that always reports one record (as review-events does when it
// cannot process it): after MaxRetries retries that record goes to the
// on-failure queue, and the records after it are handled, in order.
func TestStreamPollerSendsPoisonRecordToOnFailureQueue(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	sqsClient := stack(t)
	_, urls := ensureTestQueues(t, sqsClient)
	arn := streamArnOrFail(t, ddb, table)
	const poison, maxRetries = 3, 2

	for id := 1; id <= 6; id++ {
		putReview(t, ddb, table, id, nil)
	}
	var handled, poisonAttempts recorder[int]
	var poisonSeq recorder[string]
	p := &StreamPoller{
		Streams: streams, DB: ddb, Table: table,
		Source: deploy.StreamSource{BatchSize: 10, MaxRetries: maxRetries},
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, r := range ev.Records {
				if reviewID(r) == poison {
					poisonAttempts.add(1)
					poisonSeq.add(r.Change.SequenceNumber)
					return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}, nil
				}
				handled.add(reviewID(r))
			}
			return events.DynamoDBEventResponse{}, nil
		},
		OnFailure:   FailureQueue(sqsClient, urls[deploy.QueueReviewEventsFailures]),
		FunctionARN: FunctionARN("review-events"),
		Interval:    50 * time.Millisecond, RetryBackoff: 10 * time.Millisecond, Log: testLog(),
	}
	run(t, p.Run)

	waitFor(t, 20*time.Second, "the records after the poison one", func() bool { return len(handled.all()) >= 5 })
	// The stream is not blocked: a record written now is handled too.
	putReview(t, ddb, table, 7, nil)
	waitFor(t, 20*time.Second, "a record written afterwards", func() bool { return len(handled.all()) >= 6 })

	if got, want := handled.all(), []int{1, 2, 4, 5, 6, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("handled %v, want %v (each once, in order)", got, want)
	}
	if n := len(poisonAttempts.all()); n != maxRetries+1 {
		t.Errorf("poison record tried %d times, want %d (1 + MaxRetries)", n, maxRetries+1)
	}

	msgs := receiveAll(t, sqsClient, urls[deploy.QueueReviewEventsFailures])
	if len(msgs) != 1 {
		t.Fatalf("%d messages in the failure queue, want 1", len(msgs))
	}
	var f FailureRecord
	if err := json.Unmarshal([]byte(aws.ToString(msgs[0].Body)), &f); err != nil {
		t.Fatalf("failure record %s: %v", aws.ToString(msgs[0].Body), err)
	}
	t.Logf("failure record: %s", aws.ToString(msgs[0].Body))
	seq := poisonSeq.all()[0]
	info := f.DDBStreamBatchInfo
	if f.Version != "1.0" || f.RequestContext.Condition != "RetryAttemptsExhausted" || f.RequestContext.ApproximateInvokeCount != maxRetries+1 ||
		f.RequestContext.FunctionARN != FunctionARN("review-events") || f.RequestContext.RequestID == "" ||
		f.ResponseContext.StatusCode != 200 || f.ResponseContext.FunctionError != "" {
		t.Errorf("failure record contexts: %+v", f)
	}
	if info.StartSequenceNumber != seq || info.EndSequenceNumber != seq || info.BatchSize != 1 || info.StreamArn != arn || info.ShardID == "" {
		t.Errorf("failure record batch info %+v, want record %s of %s", info, seq, arn)
	}
	for _, ts := range []string{f.Timestamp, info.ApproximateArrivalOfFirstRecord, info.ApproximateArrivalOfLastRecord} {
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			t.Errorf("timestamp %q: %v", ts, err)
		}
	}
}

// A handler that fails the whole batch whenever it holds the bad record:
// bisection narrows the batch down to that record, which alone goes to the
// on-failure destination; every other record is handled once, in order.
func TestStreamPollerBisectsOnHandlerError(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	const bad, maxRetries = 5, 1
	for id := 1; id <= 8; id++ {
		putReview(t, ddb, table, id, nil)
	}
	var handled, sizes recorder[int]
	var failures recorder[FailureRecord]
	p := &StreamPoller{
		Streams: streams, DB: ddb, Table: table,
		Source: deploy.StreamSource{BatchSize: 8, MaxRetries: maxRetries},
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			sizes.add(len(ev.Records))
			for _, r := range ev.Records {
				if reviewID(r) == bad {
					return events.DynamoDBEventResponse{}, errors.New("cannot handle review 5")
				}
			}
			for _, r := range ev.Records {
				handled.add(reviewID(r))
			}
			return events.DynamoDBEventResponse{}, nil
		},
		OnFailure: func(ctx context.Context, f FailureRecord) error {
			failures.add(f)
			return nil
		},
		Interval: 50 * time.Millisecond, RetryBackoff: 10 * time.Millisecond, Log: testLog(),
	}
	run(t, p.Run)
	waitFor(t, 20*time.Second, "every good record", func() bool { return len(handled.all()) >= 7 })
	if got, want := handled.all(), []int{1, 2, 3, 4, 6, 7, 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("handled %v, want %v", got, want)
	}
	t.Logf("batch sizes: %v", sizes.all())
	f := failures.all()
	if len(f) != 1 {
		t.Fatalf("%d failure records, want 1", len(f))
	}
	if f[0].DDBStreamBatchInfo.BatchSize != 1 || f[0].ResponseContext.FunctionError != "Unhandled" || f[0].RequestContext.ApproximateInvokeCount != maxRetries+1 {
		t.Errorf("failure record %+v", f[0])
	}
}

// An on-failure destination that refuses the record keeps it: the poller
// tries again and only then moves on.
func TestStreamPollerKeepsRecordWhileOnFailureRefuses(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	putReview(t, ddb, table, 1, nil)
	putReview(t, ddb, table, 2, nil)
	var handled, calls recorder[int]
	p := &StreamPoller{
		Streams: streams, DB: ddb, Table: table,
		Source: deploy.StreamSource{BatchSize: 10, MaxRetries: 0},
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, r := range ev.Records {
				if reviewID(r) == 1 {
					return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}, nil
				}
				handled.add(reviewID(r))
			}
			return events.DynamoDBEventResponse{}, nil
		},
		OnFailure: func(ctx context.Context, f FailureRecord) error {
			calls.add(1)
			if len(calls.all()) < 3 {
				return errors.New("queue unavailable")
			}
			return nil
		},
		Interval: 50 * time.Millisecond, RetryBackoff: 10 * time.Millisecond, Log: testLog(),
	}
	run(t, p.Run)
	waitFor(t, 20*time.Second, "record 2", func() bool { return len(handled.all()) >= 1 })
	if n := len(calls.all()); n != 3 {
		t.Errorf("on-failure called %d times, want 3 (two refusals, then accepted)", n)
	}
	if got := handled.all(); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("handled %v, want [2]", got)
	}
}

func TestLowestFailure(t *testing.T) {
	t.Parallel()
	recs := []events.DynamoDBEventRecord{{Change: events.DynamoDBStreamRecord{SequenceNumber: "10"}}, {Change: events.DynamoDBStreamRecord{SequenceNumber: "11"}}, {Change: events.DynamoDBStreamRecord{SequenceNumber: "12"}}}
	f := func(ids ...string) []events.DynamoDBBatchItemFailure {
		var out []events.DynamoDBBatchItemFailure
		for _, id := range ids {
			out = append(out, events.DynamoDBBatchItemFailure{ItemIdentifier: id})
		}
		return out
	}
	for _, c := range []struct {
		ids  []string
		want int
	}{{[]string{"12", "11"}, 1}, {[]string{"10"}, 0}, {[]string{"12"}, 2}, {[]string{""}, -1}, {[]string{"11", "99"}, -1}} {
		if got := lowestFailure(recs, f(c.ids...)); got != c.want {
			t.Errorf("lowestFailure(%v) = %d, want %d", c.ids, got, c.want)
		}
	}
}

// StartAtLatest skips what the stream held before Run.
func TestStreamPollerStartAtLatest(t *testing.T) {
	t.Parallel()
	ddb, streams, table := reviewsTable(t)
	putReview(t, ddb, table, 1, nil)
	var handled recorder[int]
	p := &StreamPoller{
		Streams: streams, DB: ddb, Table: table, StartAtLatest: true,
		Source: deploy.StreamSource{BatchSize: 10, MaxRetries: 1},
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, r := range ev.Records {
				handled.add(reviewID(r))
			}
			return events.DynamoDBEventResponse{}, nil
		},
		Interval: 50 * time.Millisecond, Log: testLog(),
	}
	run(t, p.Run)
	// Nothing tells when the poller holds its LATEST iterators; it does
	// within its first pass, milliseconds after Run starts.
	time.Sleep(time.Second)
	putReview(t, ddb, table, 2, nil)
	waitFor(t, 20*time.Second, "the record written after the start", func() bool { return len(handled.all()) >= 1 })
	time.Sleep(200 * time.Millisecond)
	if got := handled.all(); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("handled %v, want [2]", got)
	}
}

func TestFixStreamImages(t *testing.T) {
	t.Parallel()
	body := `{"Records":[{"dynamodb":{"ApproximateCreationDateTime":1795228380.000,"SizeBytes":64,` +
		`"NewImage":{"s":{"S":"{}"},"m":{},"n":{"M":{"x":{},"l":{"L":[{},{"N":"1"}]}}}}}}],"NextShardIterator":"it"}`
	fixed, ok := fixStreamImages([]byte(body))
	if !ok {
		t.Fatal("nothing fixed")
	}
	var got, want any
	json.Unmarshal(fixed, &got)
	json.Unmarshal([]byte(`{"Records":[{"dynamodb":{"ApproximateCreationDateTime":1795228380.000,"SizeBytes":64,`+
		`"NewImage":{"s":{"S":"{}"},"m":{"M":{}},"n":{"M":{"x":{"M":{}},"l":{"L":[{"M":{}},{"N":"1"}]}}}}}}],"NextShardIterator":"it"}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fixed:\n%s", fixed)
	}
	if !bytes.Contains(fixed, []byte("1795228380.000")) {
		t.Errorf("the creation time changed form: %s", fixed)
	}
	if _, ok := fixStreamImages([]byte(`{"Records":[]}`)); ok {
		t.Error("a body without {} was rewritten")
	}
}
