package main

// `up` under faults: its servers killed (SIGKILL, by the pid stack.sh
// recorded) under the wiring `up` runs — the gateway, the review flow's
// pollers and the supervisor — each test against a stack of its own, which
// the supervisor starts again through stack.sh as it does for `up`.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

func TestUpSurvivesDynamoDBLocalKilled(t *testing.T) {
	h := newUpHarness(t, nil, "DYNAMODB_DATA_DIR="+filepath.Join(t.TempDir(), "dynamodb"))
	key := mustKey(t, &env{store: h.st, names: h.names, log: quietLogger()}, h.acct, domain.PermEntityView, domain.PermEntityCreate)

	// The flow works before anything happens.
	if err := h.approve(h.review().ID); err != nil {
		t.Fatal(err)
	}
	h.rcv.waitReviews(t, 1, 20*time.Second)

	type answer struct {
		at         time.Time
		status     int
		retryAfter string
	}
	var mu sync.Mutex
	var reads []answer
	created := map[string]int64{}  // Idempotency-Key → entity id answered 201
	numbers := map[string]string{} // Idempotency-Key → registration number
	statuses := map[int]int{}      // over every create attempt
	client := checkedClient(t)
	client.Timeout = 20 * time.Second
	do := func(method, path string, body []byte, idem string) (int, string, []byte) {
		req, _ := http.NewRequest(method, h.gw.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, "", nil
		}
		defer res.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(res.Body)
		return res.StatusCode, res.Header.Get("Retry-After"), buf.Bytes()
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	// A reader polls the API every 100 ms: what a client sees, and when.
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			status, ra, _ := do(http.MethodGet, "/api/v1/entities?per_page=1", nil, "")
			mu.Lock()
			reads = append(reads, answer{time.Now(), status, ra})
			mu.Unlock()
		}
	})
	// Three clients create steadily, each retrying a create with its key
	// until it is answered 201, as a careful client does.
	for c := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				idem, number := fmt.Sprintf("k-%d-%d", c, i), fmt.Sprintf("72%02d%05d0", c, i)
				body, _ := json.Marshal(map[string]any{"entity": map[string]any{"registration_number": number, "country_code": "SA"}})
				for {
					status, ra, out := do(http.MethodPost, "/api/v1/entities", body, idem)
					mu.Lock()
					statuses[status]++
					mu.Unlock()
					if status == http.StatusCreated {
						var v struct {
							ID int64 `json:"id"`
						}
						json.Unmarshal(out, &v)
						mu.Lock()
						created[idem], numbers[idem] = v.ID, number
						mu.Unlock()
						break
					}
					if status != 0 && status != http.StatusConflict && status < 500 {
						t.Errorf("%s: answered %d %s", idem, status, out)
						break
					}
					// Retry-After says 5 s; a second keeps the test short.
					wait, _ := strconv.Atoi(ra)
					time.Sleep(min(time.Duration(max(wait, 1))*time.Second, time.Second))
				}
			}
		})
	}

	time.Sleep(1500 * time.Millisecond)
	h.mu.Lock()
	h.restartDelay = 5 * time.Second
	h.mu.Unlock()
	killed := time.Now()
	h.stack.kill("dynamodb")
	var backAt time.Time
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if at, ok := h.back("dynamodb"); ok {
			backAt = at
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatal("DynamoDB Local not back 40 s after it was killed")
		}
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	// While it was away: 503 with Retry-After, never a 500; back within
	// seconds of its return.
	var firstOK time.Time
	unavailable := 0
	for _, a := range reads {
		switch {
		case a.at.Before(killed):
		case a.status == http.StatusServiceUnavailable:
			unavailable++
			if a.retryAfter == "" {
				t.Errorf("503 at %v without Retry-After", a.at.Sub(killed))
			}
		case a.status == http.StatusOK:
			if firstOK.IsZero() && a.at.After(backAt) {
				firstOK = a.at
			}
		default:
			t.Errorf("read at +%v answered %d", a.at.Sub(killed).Round(time.Millisecond), a.status)
		}
	}
	// A read started in the outage may outlast it (the SDK retries a
	// refused connection for about 3 s) and answer 200; creates retry for
	// longer. One of them must have met it.
	mu.Lock()
	unavailableCreates := statuses[http.StatusServiceUnavailable]
	mu.Unlock()
	if unavailable+unavailableCreates == 0 {
		t.Error("no request met DynamoDB Local away: the test proved nothing")
	}
	if firstOK.IsZero() || firstOK.Sub(backAt) > 5*time.Second {
		t.Errorf("API answered 200 again %v after DynamoDB Local was back, want within 5 s", firstOK.Sub(backAt))
	}
	for s, n := range statuses {
		if s >= 500 && s != http.StatusServiceUnavailable {
			t.Errorf("%d create attempts answered %d", n, s)
		}
	}

	// Nothing lost: every 201 is an entity, on the server that came back,
	// and every entity was answered to its key.
	byNumber := entitiesByNumber(t, h.st, h.names)
	before := 0
	for idem, id := range created {
		if got := byNumber[numbers[idem]]; got != id {
			t.Errorf("%s answered 201 with entity %d, but %s is entity %d", idem, id, numbers[idem], got)
		}
		delete(byNumber, numbers[idem])
		before++
	}
	for number, id := range byNumber {
		if !strings.HasPrefix(number, "71") { // the harness's own reviews
			t.Errorf("entity %d (%s) was never answered 201", id, number)
		}
	}

	// The stream poller carries on: a decision after the restart reaches
	// the receiver.
	if err := h.approve(h.review().ID); err != nil {
		t.Fatal(err)
	}
	h.rcv.waitReviews(t, 2, 20*time.Second)
	t.Logf("killed; back (answering, tables checked) after %v; API 200 again %v later; %d creates answered 201, %d 503s to reads; create attempts %v",
		backAt.Sub(killed).Round(100*time.Millisecond), firstOK.Sub(backAt).Round(100*time.Millisecond), before, unavailable, statuses)
}

func TestUpSurvivesElasticMQKilled(t *testing.T) {
	var atRestart map[string]string // queue name → its redrive policy ("" when none), as ElasticMQ came back
	hook := func(h *upHarness, name string) {
		if name != "elasticmq" || atRestart != nil {
			return
		}
		atRestart = map[string]string{}
		client := pipeline.SQSClient(h.stack.queueEndpoint())
		for _, q := range deploy.Queues() {
			url, err := client.GetQueueUrl(h.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(pipeline.QueueName(h.prefix, q.ID))})
			if err != nil {
				continue
			}
			attrs, err := client.GetQueueAttributes(h.ctx, &sqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl,
				AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameRedrivePolicy}})
			if err == nil {
				atRestart[q.ID] = attrs.Attributes[string(sqstypes.QueueAttributeNameRedrivePolicy)]
			}
		}
	}
	// A message a poller had taken when ElasticMQ died is hidden for the
	// queue's visibility after it comes back (six minutes as deployed): a
	// short one lets the test see it delivered, once.
	h := newUpHarness(t, hook, "ELASTICMQ_DATA_DIR="+filepath.Join(t.TempDir(), "elasticmq"), "ELASTICMQ_DELIVERIES_VISIBILITY=8")

	const n = 50
	reviews := make([]domain.Review, n)
	for i := range reviews {
		reviews[i] = h.review()
	}
	// Decisions at a steady pace, ElasticMQ killed a little after they
	// start: the decisions go on (DynamoDB is up) while it is away.
	done := make(chan error, 1)
	go func() {
		for _, r := range reviews {
			if err := h.approve(r.ID); err != nil {
				done <- err
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		done <- nil
	}()
	time.Sleep(1500 * time.Millisecond)
	killed := time.Now()
	h.stack.kill("elasticmq")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A message a poller had taken in a receive that ElasticMQ died
	// answering is hidden, after its return, for the queue's visibility
	// (six minutes, as deployed): delayed, not lost. Wait for the rest;
	// what is missing must be there, hidden.
	for deadline := time.Now().Add(45 * time.Second); h.rcv.reviews() < n && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	missing := n - h.rcv.reviews()
	if missing > 0 {
		client := pipeline.SQSClient(h.stack.queueEndpoint())
		out, err := client.GetQueueAttributes(h.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(h.flow.QueueURLs[deploy.QueueDeliveries]),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
		if err != nil {
			t.Fatal(err)
		}
		hidden, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
		t.Logf("%d reviews not delivered yet; %d messages hidden in the deliveries queue", missing, hidden)
		if hidden < missing {
			t.Fatalf("%d reviews have no delivery and only %d messages are hidden in the queue: deliveries were lost", missing, hidden)
		}
	}
	backAt, ok := h.back("elasticmq")
	if !ok {
		t.Fatal("ElasticMQ never came back")
	}
	time.Sleep(time.Second) // anything still in flight lands

	// The queues were there the moment it came back, dead letters included.
	for _, q := range deploy.Queues() {
		policy, ok := atRestart[q.ID]
		switch {
		case !ok:
			t.Errorf("queue %s missing when ElasticMQ came back", q.ID)
		case q.DeadLetter != "" && !strings.Contains(policy, `"maxReceiveCount":`+strconv.Itoa(q.MaxReceiveCount)) &&
			!strings.Contains(policy, `"maxReceiveCount":"`+strconv.Itoa(q.MaxReceiveCount)+`"`):
			t.Errorf("queue %s came back with redrive policy %q, want maxReceiveCount %d", q.ID, policy, q.MaxReceiveCount)
		}
	}

	// Exactly once: one verified POST per review, one per delivery, and
	// the deliveries view records each of them delivered, no more.
	ds, err := h.st.Deliveries(h.ctx, h.acct, domain.DeliveryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	h.rcv.mu.Lock()
	defer h.rcv.mu.Unlock()
	waiting := 0
	for _, r := range reviews {
		switch got := h.rcv.byReview[r.ID]; {
		case got == 0 && waiting < missing:
			waiting++ // its message is hidden in the queue (above)
		case got != 1:
			t.Errorf("review %d: %d verified POSTs, want 1", r.ID, got)
		}
	}
	recorded := map[string]bool{}
	for _, d := range ds {
		if d.Status != domain.DeliveryDelivered {
			t.Errorf("delivery %s: %s (%s)", d.ID, d.Status, d.Error)
		}
		if recorded[d.ID] {
			t.Errorf("delivery %s recorded twice", d.ID)
		}
		recorded[d.ID] = true
		if h.rcv.byDelivery[d.ID] != 1 {
			t.Errorf("delivery %s: the receiver verified %d POSTs of it, want 1", d.ID, h.rcv.byDelivery[d.ID])
		}
	}
	for id, c := range h.rcv.byDelivery {
		if !recorded[id] {
			t.Errorf("the receiver got delivery %s (%d times), which the deliveries view does not have", id, c)
		}
	}
	if len(ds) != n-missing || h.rcv.refused != 0 {
		t.Errorf("%d deliveries recorded, %d refused POSTs; want %d, 0", len(ds), h.rcv.refused, n-missing)
	}
	// Nothing was given up on.
	client := pipeline.SQSClient(h.stack.queueEndpoint())
	for _, id := range []string{deploy.QueueDeliveriesDLQ, deploy.QueueReviewEventsFailures} {
		out, err := client.GetQueueAttributes(h.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(h.flow.QueueURLs[id]),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
		if err != nil {
			t.Fatal(err)
		}
		if v := out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)]; v != "0" {
			t.Errorf("queue %s holds %s messages, want 0", id, v)
		}
	}
	t.Logf("ElasticMQ killed %v into the decisions, back after %v; %d decisions, %d deliveries, each posted once",
		1500*time.Millisecond, backAt.Sub(killed).Round(100*time.Millisecond), n, len(ds))
}
