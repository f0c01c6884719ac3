package main

// The first day on a stage, through the command line's remote mode: every
// command runs with --stage against the admin function and the decision
// state machine served over the Lambda and Step Functions APIs on a loopback
// port (stageapi.go), the stack's outputs given by EVS_STACK_OUTPUTS, the
// AWS SDK signing as it would for AWS. The API is called through the local
// gateway; decisions flow through the stream and the queue to a receiver.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webhooks/receiver"
)

// stageFixture runs CLI commands against the stand-in stage.
type stageFixture struct {
	t   *testing.T
	url string
	f   *flowFixture
	mu  sync.Mutex // os.Stdout is swapped while a command runs
}

func newStageFixture(t *testing.T) *stageFixture {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the decision workflow runs in aws-local-stepfunctions on Node.js 20 or later")
	}
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond, ClientTimeout: 2 * time.Second})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	ctx := logging.WithLogger(context.Background(), quietLogger())
	adm, err := boot.As[boot.AdminHandler]("admin", boot.Deps{Records: records.Dir{Root: t.TempDir()}, Store: f.st, Log: quietLogger(), Clock: domain.SystemClock, Allow: allow,
		Deliveries: &delivery.SQSQueue{Client: f.flow.SQS, URL: f.flow.QueueURLs[deploy.QueueDeliveries]}})
	if err != nil {
		t.Fatal(err)
	}
	decide, err := decisionService(&env{store: f.st, log: quietLogger()}, "") // no provider: every check fails
	if err != nil {
		t.Fatal(err)
	}
	api := newStageAPI(ctx, adm, decide)
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	api.base = srv.URL

	t.Setenv(stackOutputsVar, localStageOutputs())
	for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED": "true", "EVS_ACTOR": "first-day@example.com"} {
		t.Setenv(k, v)
	}
	return &stageFixture{t: t, url: srv.URL, f: f}
}

// cli runs `go run ./local ARGS --stage test --endpoint-url …` in-process
// and returns what it printed on stdout.
func (s *stageFixture) cli(args ...string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	args = append(args, "--stage", "test", "--endpoint-url", s.url)
	r, w, err := os.Pipe()
	if err != nil {
		s.t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	var out []byte
	done := make(chan struct{})
	go func() { out, _ = io.ReadAll(r); close(done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err = run(ctx, args)
	w.Close()
	os.Stdout = stdout
	<-done
	return string(out), err
}

func (s *stageFixture) must(args ...string) string {
	s.t.Helper()
	out, err := s.cli(args...)
	if err != nil {
		s.t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out)
}

// refused asserts the command exits with the named refusal.
func (s *stageFixture) refused(name string, args ...string) {
	s.t.Helper()
	_, err := s.cli(args...)
	r, ok := asRefusal(err)
	if !ok || r.Name != name {
		s.t.Errorf("%s: %v, want %s", strings.Join(args, " "), err, name)
	}
}

func (s *stageFixture) deliveries(acct string, args ...string) []admin.DeliveryView {
	s.t.Helper()
	out := s.must(append([]string{"deliveries", "list", "--account", acct}, args...)...)
	var ds []admin.DeliveryView
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		var d admin.DeliveryView
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			s.t.Fatalf("deliveries list printed %q: %v", line, err)
		}
		ds = append(ds, d)
	}
	return ds
}

// waitDeliveries polls the deliveries view until want(list) holds.
func (s *stageFixture) waitDeliveries(acct string, what string, want func([]admin.DeliveryView) bool) []admin.DeliveryView {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds := s.deliveries(acct)
		if want(ds) {
			return ds
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %s after 20 s: %+v", what, ds)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestFirstDayOnAStage(t *testing.T) {
	s := newStageFixture(t)
	ctx := context.Background()

	// An account with Saudi Arabia, and a key for it.
	acct := s.must("account", "create", "--name", "First Customer", "--countries", "SA", "--review-interval-days", "365")
	// A new account takes only signed decisions: an unsigned one through
	// the stage's workflow is SignatureRequired, until the account accepts
	// declared decisions.
	if _, err := s.cli("decide", "start", "--account", acct, "--review", "1", "--operator", "1"); err == nil {
		t.Error("an unsigned decision on an account that takes only signed ones was not refused")
	}
	s.must("account", "update", "--id", acct, "--declared-decisions", "true")
	key := s.must("key", "create", "--account", acct, "--permissions", "entity.view,entity.review.view")
	if !strings.HasPrefix(key, "evs_") {
		t.Fatalf("key create printed %q", key)
	}
	gw := newGateway(s.f.st, quietLogger(), providers{})
	gw.AuthorizerCacheTTL = 300 * time.Millisecond
	api := httptest.NewServer(gw)
	defer api.Close()
	get := func(key string) int {
		req, _ := http.NewRequest(http.MethodGet, api.URL+"/api/v1/entities", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := checkedClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := get(key); code != http.StatusOK {
		t.Fatalf("GET /api/v1/entities with the new key: %d", code)
	}

	// Operators and an endpoint pointing at a receiver that fails at first.
	op := s.must("operator", "create", "--account", acct, "--name", "Dana", "--permissions",
		"entity.review.decide,webhook_endpoint.manage,webhook_delivery.view")
	second := s.must("operator", "create", "--account", acct, "--name", "Omar", "--permissions", "entity.review.decide")
	var failing atomic.Bool
	failing.Store(true)
	var received sync.Map // delivery id -> event type
	var secret string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &receiver.Verifier{Secrets: [][]byte{[]byte(secret)}, Log: quietLogger()}
		receiver.Handler(v, func(_ context.Context, ev receiver.Event, id string) error {
			if failing.Load() {
				return errors.New("receiver down")
			}
			received.Store(id, ev.EventType)
			return nil
		}).ServeHTTP(w, r)
	}))
	defer recv.Close()
	idSecret := strings.SplitN(s.must("endpoint", "create", "--account", acct, "--url", recv.URL+"/hook", "--events", "approved,rejected,assigned"), "\t", 2)
	if len(idSecret) != 2 || !strings.HasPrefix(idSecret[1], "evs_whsk_") {
		t.Fatalf("endpoint create printed %q", idSecret)
	}
	secret = idSecret[1]

	// A decision through the stage's state machine reaches the receiver,
	// fails there, and is redelivered once the receiver is back.
	review := s.f.stageReview(acct, "7000000410")
	if out := s.must("decide", "start", "--account", acct, "--review", review, "--operator", op); !strings.Contains(out, `"status": "in_progress"`) {
		t.Fatalf("decide start printed %s", out)
	}
	if out := s.must("decide", "approve", "--account", acct, "--review", review, "--operator", op, "--reason", "documents_verified"); !strings.Contains(out, `"outcome": "approved"`) {
		t.Fatalf("decide approve printed %s", out)
	}
	ds := s.waitDeliveries(acct, "two failed deliveries", func(ds []admin.DeliveryView) bool {
		return len(ds) == 2 && ds[0].Status == "failed" && ds[1].Status == "failed"
	})
	var approved admin.DeliveryView
	for _, d := range ds {
		if d.EventType == string(domain.EventApproved) {
			approved = d
		}
	}
	if approved.ID == "" || approved.ResponseStatus != http.StatusInternalServerError {
		t.Fatalf("deliveries = %+v, want a failed approved delivery answered 500", ds)
	}
	failing.Store(false)
	if out := s.must("deliveries", "redeliver", "--account", acct, "--id", approved.ID, "--reason", "receiver fixed"); !strings.Contains(out, `"status":"queued"`) {
		t.Fatalf("redeliver printed %s", out)
	}
	s.waitDeliveries(acct, "a delivered redelivery", func(ds []admin.DeliveryView) bool {
		return len(ds) == 3 && ds[0].ID == approved.ID+".2" && ds[0].Status == "delivered"
	})
	if ev, ok := received.Load(approved.ID + ".2"); !ok || ev != string(domain.EventApproved) {
		t.Errorf("the receiver did not get the redelivery: %v", ev)
	}
	if out := s.must("deliveries", "get", "--account", acct, "--id", approved.ID+".2"); !strings.Contains(out, `"reason":"receiver fixed"`) {
		t.Errorf("deliveries get printed %s", out)
	}

	// Four eyes: the execution waits for a second operator; a declared
	// confirmation (SendTaskSuccess naming them) is never enough.
	s.must("account", "update", "--id", acct, "--four-eyes", "reject")
	review2 := s.f.stageReview(acct, "7000000420")
	s.must("decide", "start", "--account", acct, "--review", review2, "--operator", op)
	out := s.must("decide", "reject", "--account", acct, "--review", review2, "--operator", op, "--reason", "sanctions_hit",
		"--action-id", "reject-420", "--wait", "1s")
	if !strings.Contains(out, `"status": "RUNNING"`) {
		t.Fatalf("a four-eyes decision printed %s, want it waiting", out)
	}
	if _, err := s.cli("decide", "confirm", "--token", "no-such-token", "--operator", second); err == nil || !strings.Contains(err.Error(), "TaskDoesNotExist") {
		t.Errorf("confirming an unknown token: %v, want TaskDoesNotExist", err)
	}
	// The approver answers once the approvals topic has the token (here,
	// once the execution waits for it).
	waitFor(t, "the execution waiting for approval", func() bool {
		_, err := s.cli("decide", "confirm", "--token", "local-token-reject-420", "--operator", second)
		return err == nil
	})
	// The execution's Apply refuses it (SignatureRequired): give it the
	// time a run takes, then nothing may have been decided.
	time.Sleep(3 * time.Second)
	if r, err := s.f.st.Review(ctx, mustInt(t, acct), mustInt(t, review2)); err != nil || r.Outcome != nil {
		t.Errorf("a declared second approval decided the review: %+v, %v", r, err)
	}

	// The trail names the actor and the request of every change.
	trail := s.must("audit", "--account", acct)
	for _, action := range []string{"account.create", "key.create", "operator.create", "webhook_endpoint.create", "webhook_delivery.redeliver", "account.update"} {
		if !strings.Contains(trail, `"action":"`+action+`"`) {
			t.Errorf("the audit trail has no %s: %s", action, trail)
		}
	}
	if strings.Count(trail, `"actor":"first-day@example.com"`) < 6 || strings.Contains(trail, key) {
		t.Errorf("audit trail: want the actor on every change and never the key: %s", trail)
	}

	// Revoking the key: 401 once the authorizer's cached answer expires.
	s.must("key", "revoke", "--account", acct, "--key", key)
	time.Sleep(400 * time.Millisecond)
	if code := get(key); code != http.StatusUnauthorized {
		t.Errorf("GET with a revoked key: %d, want 401", code)
	}

	// The account's own actions form a hash chain that holds; an item
	// altered in the table breaks it, and the check names the record.
	if out := s.must("audit", "--verify", "--account", acct); !strings.Contains(out, "the chain holds") || !strings.Contains(out, `"intact":true`) {
		t.Errorf("audit --verify: %s", out)
	}
	// The newest of the account's own records (the trail holds entities'
	// too).
	var first admin.AuditView
	for _, line := range strings.Split(trail, "\n") {
		if err := json.Unmarshal([]byte(line), &first); err != nil {
			t.Fatal(err)
		}
		if first.EntityID == 0 {
			break
		}
	}
	err := s.f.st.DB().Table(s.f.names[schema.Audit]).Update("account_id", first.AccountID).Range("action_id", first.ActionID).
		Set("reason", "rewritten").Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.cli("audit", "--verify", "--account", acct); err == nil || !strings.Contains(err.Error(), first.ActionID) || !strings.Contains(out, "head of entity 0") {
		t.Errorf("audit --verify after an altered record: %v (printed %s), want a failure naming %s", err, out, first.ActionID)
	}
}

// TestStageCommandsRefuseBadInput: every command family refuses bad input
// and other accounts' ids by name, exits non-zero, and writes nothing.
func TestStageCommandsRefuseBadInput(t *testing.T) {
	s := newStageFixture(t)
	mine := s.must("account", "create", "--name", "Mine", "--countries", "SA")
	theirs := s.must("account", "create", "--name", "Theirs", "--countries", "SA")
	theirEP := strings.SplitN(s.must("endpoint", "create", "--account", theirs, "--url", "https://hooks.example.com/x", "--events", "approved"), "\t", 2)[0]
	theirOp := s.must("operator", "create", "--account", theirs, "--name", "T", "--permissions", "")
	theirKey := s.must("key", "create", "--account", theirs, "--permissions", "entity.view")

	before := s.f.itemCounts()
	for _, c := range []struct {
		want string
		args []string
	}{
		{"NotFound", []string{"account", "get", "--id", "99999999"}},
		{"InvalidRequest", []string{"account", "create", "--name", "X", "--countries", "SA,ZZ"}},
		{"InvalidRequest", []string{"account", "update", "--id", mine, "--four-eyes", "approve_everything"}},
		{"InvalidRequest", []string{"key", "create", "--account", mine, "--permissions", "entity.view,entity.delete"}},
		{"NotFound", []string{"key", "create", "--account", "99999999", "--permissions", "entity.view"}},
		{"NotFound", []string{"key", "revoke", "--account", mine, "--key", theirKey}},
		{"InvalidRequest", []string{"operator", "create", "--account", mine, "--name", "X", "--permissions", "root"}},
		{"NotFound", []string{"operator", "disable", "--account", mine, "--id", theirOp}},
		{"NotFound", []string{"endpoint", "get", "--account", mine, "--id", theirEP}},
		{"NotFound", []string{"endpoint", "delete", "--account", mine, "--id", theirEP}},
		{"InvalidRequest", []string{"endpoint", "create", "--account", mine, "--url", "http://169.254.169.254/latest", "--events", "approved"}},
		{"InvalidRequest", []string{"endpoint", "create", "--account", mine, "--url", "https://hooks.example.com", "--events", "created"}},
		{"InvalidRequest", []string{"deliveries", "list", "--account", mine, "--status", "lost"}},
		{"NotFound", []string{"deliveries", "redeliver", "--account", mine, "--id", "dlv_nope", "--reason", "r"}},
		{"NotFound", []string{"decide", "approve", "--account", mine, "--review", "99999999", "--operator", theirOp, "--reason", "r"}},
	} {
		s.refused(c.want, c.args...)
	}
	// Usage mistakes are caught before anything is sent.
	for _, args := range [][]string{{"key", "list"}, {"audit"}, {"decide", "start", "--review", "1", "--operator", "1"}, {"account", "get"}} {
		if _, err := s.cli(args...); err == nil {
			t.Errorf("%v: no error", args)
		} else if _, ok := err.(usageError); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	if after := s.f.itemCounts(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused commands wrote: before %v, after %v", before, after)
	}
}

// stageReview creates an entity with an open initial review in account
// acct and returns the review's id.
func (f *flowFixture) stageReview(acct, number string) string {
	f.t.Helper()
	now := domain.Now()
	d, err := f.st.CreateEntity(f.ctx, approvable(mustInt(f.t, acct), number, "Stage Co "+number, now))
	if err != nil {
		f.t.Fatal(err)
	}
	return fmt.Sprint(d.Reviews[0].ID)
}

// itemCounts counts the items of every table.
func (f *flowFixture) itemCounts() map[string]int {
	f.t.Helper()
	out := map[string]int{}
	for id, name := range f.names {
		n, err := f.st.DB().Table(name).Scan().Consistent(true).Count(f.ctx)
		if err != nil {
			f.t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

func mustInt(t testing.TB, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 20 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
