package settings_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/settings"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webpage"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// The store is what the settings area reads countries from in production.
var _ settings.Countries = (*store.Store)(nil)

// Roles of the world's operators: what each may do in the settings area.
const (
	roleAll      = "all"      // every permission
	roleManager  = "manager"  // webhook_endpoint.manage only
	roleViewer   = "viewer"   // webhook_delivery.view only
	roleReader   = "reader"   // none of the settings area's: signed in, reads the countries only
	roleSettings = "settings" // account.settings.manage only
)

func roles() []string { return []string{roleAll, roleManager, roleViewer, roleReader, roleSettings} }

// world is one account on DynamoDB Local and ElasticMQ, the settings
// area over the real services, and a signed-in session per role.
type world struct {
	st       *store.Store
	h        http.Handler
	deps     settings.Deps
	log      *slog.Logger
	portal   *fakePortal
	tester   *fakeTester
	sqs      *sqs.Client
	queueURL string
	account  domain.Account
	ops      map[string]domain.Operator
	sessions map[string]string // role → session token
	seq      atomic.Int64
	logs     *strings.Builder
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	w := &world{st: st, portal: newFakePortal(), ops: map[string]domain.Operator{}, sessions: map[string]string{}, logs: &strings.Builder{}}
	acct, err := st.CreateAccount(ctx, "Settings "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	w.account = acct
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, "SA", 682, t0)); err != nil {
		t.Fatal(err)
	}

	perms := map[string][]string{
		roleAll:      {domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView, domain.PermAccountSettingsManage},
		roleManager:  {domain.PermWebhookEndpointEdit},
		roleViewer:   {domain.PermWebhookDeliveryView},
		roleReader:   {domain.PermReviewDecide},
		roleSettings: {domain.PermAccountSettingsManage},
	}
	for _, role := range roles() {
		op, err := st.CreateOperator(ctx, acct.ID, "Olga "+role, perms[role], t0)
		if err != nil {
			t.Fatal(err)
		}
		w.ops[role] = op
		w.sessions[role] = w.portal.start(w.session(role))
	}

	w.sqs = sqs.NewFromConfig(devstack.AWSConfig(), func(o *sqs.Options) { o.BaseEndpoint = aws.String(devstack.SQSEndpoint()) })
	name := strings.ReplaceAll(devstack.UniquePrefix(t.Name())+"deliveries", ".", "-")
	q, err := w.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	w.queueURL = aws.ToString(q.QueueUrl)
	t.Cleanup(func() { w.sqs.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl}) })

	// As delivery.Tester will: the operator needs webhook_endpoint.manage,
	// the endpoint must be the account's.
	w.tester = &fakeTester{send: func(a domain.Actor, endpointID int64) (domain.Delivery, error) {
		op, err := st.Operator(ctx, a.AccountID, a.OperatorID)
		if err != nil {
			return domain.Delivery{}, err
		}
		if !op.Can(domain.PermWebhookEndpointEdit) {
			return domain.Delivery{}, domain.Errorf(domain.ECodeForbidden, "Operator %d lacks %s.", op.ID, domain.PermWebhookEndpointEdit)
		}
		if _, err := st.Endpoint(ctx, a.AccountID, endpointID); err != nil {
			return domain.Delivery{}, err
		}
		return w.deliver(t, endpointID, 200, `{"ok":true}`, ""), nil
	}}
	clock := domain.FixedClock(t0.Add(time.Hour))
	w.deps = settings.Deps{
		Endpoints:  &subscriptions.Service{Store: st, Clock: clock},
		Deliveries: &delivery.Redeliverer{Store: st, Queue: &delivery.SQSQueue{Client: w.sqs, URL: w.queueURL}, Clock: clock},
		Tester:     w.tester,
		Countries:  st,
		Catalogue:  country.ISO(),
		Clock:      clock,
	}
	w.log = slog.New(slog.NewJSONHandler(syncWriter{w.logs}, nil))
	w.h = newServer(w.portal, w.deps, w.log)
	return w
}

// messages are the delivery messages queued since last asked.
func (w *world) messages(t *testing.T) []delivery.Message {
	t.Helper()
	ctx := t.Context()
	var out []delivery.Message
	for {
		res, err := w.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(w.queueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) == 0 {
			return out
		}
		for _, m := range res.Messages {
			var msg delivery.Message
			if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &msg); err != nil {
				t.Fatal(err)
			}
			out = append(out, msg)
			w.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(w.queueURL), ReceiptHandle: m.ReceiptHandle})
		}
	}
}

// syncWriter lets the handler's logs be read after the requests.
type syncWriter struct{ b *strings.Builder }

func (s syncWriter) Write(p []byte) (int, error) { return s.b.Write(p) }

// session is a role's portal session, signed in with a passkey on the
// console: the only sessions the settings area takes.
func (w *world) session(role string) portal.Session {
	return portal.Session{AccountID: w.account.ID, Operator: w.ops[role], CredentialID: []byte("passkey of " + role),
		StartedAt: t0, ExpiresAt: t0.Add(portal.SessionAbsolute), IdleUntil: t0.Add(portal.SessionIdle)}
}

// csrf is the token a session's forms carry, derived as the brief says:
// base64url(HMAC-SHA256(key = session token, "csrf")).
func csrf(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// answer is a response with its body read.
type answer struct {
	*http.Response
	body string
}

func (w *world) do(r *http.Request) answer { return w.doWith(w.h, r) }

func (w *world) doWith(h http.Handler, r *http.Request) answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	return answer{res, string(b)}
}

// withRequestID gives the request a Lambda request id, as the runtime does.
func withRequestID(r *http.Request, id string) *http.Request {
	return r.WithContext(lambdacontext.NewContext(r.Context(), &lambdacontext.LambdaContext{AwsRequestID: id}))
}

// get is a role's GET ("" for no cookie).
func (w *world) get(role, path string) answer {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if role != "" {
		r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: w.sessions[role]})
	}
	return w.do(r)
}

// post is a role's form POST with the session's CSRF token and a fresh
// action id, unless the form sets them itself.
func (w *world) post(role, path string, form url.Values) answer {
	return w.do(w.formRequest(role, path, form))
}

func (w *world) formRequest(role, path string, form url.Values) *http.Request {
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	if _, ok := f["csrf"]; !ok && role != "" {
		f.Set("csrf", csrf(w.sessions[role]))
	}
	if _, ok := f["action_id"]; !ok {
		f.Set("action_id", w.actionID())
	}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(f.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://example.com") // as a browser posts a form: from the page's own origin
	if role != "" {
		r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: w.sessions[role]})
	}
	return r
}

// actionID is a well-formed action id, new each time.
func (w *world) actionID() string { return "web-" + rand.Text() }

// endpoint creates an endpoint through the service, as the all-role.
func (w *world) endpoint(t *testing.T, rawURL, description string) domain.Endpoint {
	t.Helper()
	svc := &subscriptions.Service{Store: w.st, Clock: domain.FixedClock(t0)}
	ep, err := svc.Create(context.Background(), domain.Actor{AccountID: w.account.ID, OperatorID: w.ops[roleAll].ID, ActionID: fmt.Sprintf("seed-%d", w.seq.Add(1))},
		rawURL, []domain.EventType{domain.EventApproved, domain.EventRejected}, description)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// deactivate turns the endpoint off, as an operator would.
func (w *world) deactivate(t *testing.T, ep domain.Endpoint) {
	t.Helper()
	svc := &subscriptions.Service{Store: w.st, Clock: domain.FixedClock(t0)}
	off := false
	if _, err := svc.Update(context.Background(), domain.Actor{AccountID: w.account.ID, OperatorID: w.ops[roleAll].ID, ActionID: fmt.Sprintf("seed-%d", w.seq.Add(1))},
		ep.ID, subscriptions.Changes{Active: &off}); err != nil {
		t.Fatal(err)
	}
}

// deliver records a finished first attempt to the endpoint, as the
// delivery function would: the receiver answered status and body.
func (w *world) deliver(t *testing.T, endpointID int64, status int, body, failure string) domain.Delivery {
	t.Helper()
	return w.deliverAt(t, endpointID, status, body, failure, time.Time{})
}

// deliverAt is deliver at a time of the caller's (zero: a second after
// the one before).
func (w *world) deliverAt(t *testing.T, endpointID int64, status int, body, failure string, at time.Time) domain.Delivery {
	t.Helper()
	ctx := context.Background()
	n := w.seq.Add(1)
	ev := domain.Event{EventType: domain.EventApproved, EntityReviewID: 500 + n, EntityID: 700 + n, AccountID: w.account.ID, Outcome: new(domain.OutcomeApproved), OccurredAt: domain.FormatTime(t0)}
	payload, err := delivery.EncodeBody(ev)
	if err != nil {
		t.Fatal(err)
	}
	eventID := fmt.Sprintf("evt_%d", n)
	if at.IsZero() {
		at = t0.Add(time.Duration(n) * time.Second)
	}
	d, _, err := w.st.ClaimDelivery(ctx, domain.Delivery{
		AccountID: w.account.ID, ID: delivery.ID(eventID, endpointID), Attempt: 1, EndpointID: endpointID, EventID: eventID, Event: ev,
		Payload: payload, URL: "https://hooks.example.com/evs", CreatedAt: at,
	}, at, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	done := at.Add(120 * time.Millisecond)
	d.CompletedAt, d.ResponseStatus, d.ResponseBody, d.DurationMS = &done, status, body, 120
	d.Status, d.Error = domain.DeliveryDelivered, failure
	if status < 200 || status > 299 || failure != "" {
		d.Status = domain.DeliveryFailed
	}
	if err := w.st.FinishDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := w.st.Delivery(ctx, w.account.ID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// state is what a refused request must leave as it was.
type state struct {
	endpoints  string
	deliveries int
	countries  string
	audit      int
	tests      int
	sessions   int
}

func (w *world) state(t *testing.T) state {
	t.Helper()
	ctx := context.Background()
	eps, err := w.st.Endpoints(ctx, w.account.ID, domain.ReadStrong)
	if err != nil {
		t.Fatal(err)
	}
	var s state
	for _, e := range eps {
		s.endpoints += fmt.Sprintf("%d:%d:%s:%t:%s|", e.ID, e.Version, e.URL, e.Active, e.Secret)
	}
	ds, err := w.st.Deliveries(ctx, w.account.ID, domain.DeliveryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	s.deliveries = len(ds)
	cs, err := w.st.CountryConfigs(ctx, w.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		s.countries += fmt.Sprintf("%s:%t|", c.CountryCode, c.Active)
	}
	recs, err := w.st.AccountAudit(ctx, w.account.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	s.audit, s.tests, s.sessions = len(recs), w.tester.count(), w.portal.count()
	return s
}

// formPattern finds a form's method and action (the markup is ours).
var formPattern = regexp.MustCompile(`<form method="(get|post)" action="([^"]*)"`)

// forms lists a page's forms as "post /settings/…".
func forms(body string) []string {
	var out []string
	for _, m := range formPattern.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

// changeForms are the forms other than sign-out and the deliveries filter.
func changeForms(body string) []string {
	return slices.DeleteFunc(forms(body), func(f string) bool {
		return f == "post /settings/signout" || f == "get /settings/deliveries"
	})
}

// newServer is the web function's shell with the settings area alone
// mounted on it.
func newServer(p webpage.Sessions, d settings.Deps, log *slog.Logger) http.Handler {
	s := webpage.New(webpage.Config{Sessions: p, Log: log, SignInPath: "/console/"})
	settings.Mount(s, d)
	return s
}
