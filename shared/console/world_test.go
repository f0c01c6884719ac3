package console_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/console"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/settings"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webpage"
)

// These tests run the console over the real services and the real store
// on DynamoDB Local, behind an httptest server; a software authenticator
// (passkeytest) plays the browser's part in the passkey ceremonies, and a
// fake workflow at the edge runs the real decision handler.

const (
	origin = "http://localhost:3000"
	rpID   = "localhost"
)

// What production wires the console over.
var (
	_ console.Store  = (*store.Store)(nil)
	_ console.Portal = (*portal.Service)(nil)
	_ console.Queue  = (*queue.Service)(nil)
)

// Operators of the world, by what they may do.
const (
	dana = "dana" // decides, assigns, assesses risk, edits profiles
	sami = "sami" // decides
	vera = "vera" // views only: no decision permission
)

type world struct {
	st      *store.Store
	account domain.Account
	keys    *passkey.Service
	portal  *portal.Service
	decide  *decisions.Service
	wf      *fakeWorkflow
	srv     *httptest.Server
	ops     map[string]domain.Operator
	logs    *syncBuilder

	mu       sync.Mutex
	seen     []string // every body and header the server answered with
	sessions []string // every session token the server set in a cookie
	seq      int
	clock    domain.Clock
}

// newWorld is an account whose decisions must be signed and whose AML
// escalations take four eyes, its operators, and the console serving it.
// The clock is the wall clock's: DynamoDB Local drops items past their TTL.
func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	w := &world{st: st, ops: map[string]domain.Operator{}, logs: &syncBuilder{}, clock: domain.SystemClock}
	now := w.clock.Now()
	acct, err := st.CreateAccount(ctx, "Console "+t.Name(), now)
	if err != nil {
		t.Fatal(err)
	}
	acct.Settings = domain.AccountSettings{FourEyes: []string{string(domain.ActionEscalateToAML)}, SLADays: map[domain.ReviewPurpose]int{domain.ReviewInitial: 5}}
	if err := st.PutAccountSettings(ctx, acct.ID, acct.Settings); err != nil {
		t.Fatal(err)
	}
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, "SA", 682, now)); err != nil {
		t.Fatal(err)
	}
	w.account = acct
	for name, perms := range map[string][]string{
		dana: {domain.PermReviewDecide, domain.PermReviewAssign, domain.PermRiskAssess, domain.PermProfileEdit},
		sami: {domain.PermReviewDecide},
		vera: {domain.PermWebhookDeliveryView},
	} {
		op, err := st.CreateOperator(ctx, acct.ID, strings.ToUpper(name[:1])+name[1:], perms, now)
		if err != nil {
			t.Fatal(err)
		}
		w.ops[name] = op
	}
	w.keys = &passkey.Service{Store: st, Clock: w.clock, Config: passkey.Config{RPID: rpID, RPDisplayName: "EVS", Origins: []string{origin}}}
	w.portal = &portal.Service{Store: st, Clock: w.clock}
	w.decide = &decisions.Service{Store: st, Checker: &checks.Runner{Clock: w.clock}, Clock: w.clock, Signatures: w.keys}
	w.wf = newFakeWorkflow(w.decide)
	h := webpage.New(webpage.Config{Sessions: w.portal, Log: slog.New(slog.NewJSONHandler(w.logs, nil)), SignInPath: "/console/"})
	console.Mount(h, console.Deps{
		Portal: w.portal, Passkeys: w.keys, Queue: &queue.Service{Store: st, Clock: w.clock}, Store: st, Workflow: w.wf,
		Clock: w.clock,
	})
	// The settings area beside it, as the web function mounts them: one
	// sign-in for both.
	settings.Mount(h, settings.Deps{Endpoints: &subscriptions.Service{Store: st, Clock: w.clock}, Countries: st, Catalogue: country.ISO(), Clock: w.clock})
	w.srv = httptest.NewServer(w.recording(h))
	t.Cleanup(w.srv.Close)
	t.Cleanup(func() {
		w.noTokenShown(t)
		if t.Failed() {
			t.Logf("the console's logs:\n%s", w.logs.String())
		}
	})
	return w
}

// recording keeps every answer's headers and body, for the checks that
// no token is ever shown.
func (w *world) recording(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var b strings.Builder
		for k, vs := range rec.Header() {
			if k != "Set-Cookie" { // the session's own cookie carries its token, and only it
				fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(vs, ", "))
			}
		}
		b.Write(rec.Body.Bytes())
		w.mu.Lock()
		w.seen = append(w.seen, b.String())
		for _, c := range (&http.Response{Header: rec.Header()}).Cookies() {
			if c.Name == webpage.CookieName && c.Value != "" {
				w.sessions = append(w.sessions, c.Value)
			}
		}
		w.mu.Unlock()
		for k, vs := range rec.Header() {
			rw.Header()[k] = vs
		}
		rw.WriteHeader(rec.Code)
		rw.Write(rec.Body.Bytes())
	})
}

func (w *world) next(prefix string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	return fmt.Sprintf("%s-%d", prefix, w.seq)
}

// link mints an enrolment link for the operator, as the administrator.
func (w *world) link(t *testing.T, name string) string {
	t.Helper()
	l, err := w.portal.Mint(context.Background(), domain.Actor{AccountID: w.account.ID, Admin: "admin@example.com", ActionID: w.next("mint")}, w.ops[name].ID)
	if err != nil {
		t.Fatal(err)
	}
	return l.Token
}

// syncBuilder is a log sink the handler writes from its goroutines.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// page is an answer with its body read.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) read(res *http.Response, err error) page {
	t := b.t
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(body)}
}

// newClient is a browser's HTTP side: a cookie jar, no redirect followed,
// and the Origin a browser sends with every POST (the shell refuses a
// POST that carries neither it nor Sec-Fetch-Site).
func newClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: time.Minute, Transport: browserOrigin{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// browserOrigin sends a POST with the Origin of the server it goes to,
// unless the request names its origin (or its fetch site) itself.
type browserOrigin struct{}

func (browserOrigin) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Origin", r.URL.Scheme+"://"+r.URL.Host)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// noTokenShown checks, after every test, that no session token and no
// approval task token appears in any page, header (but the session's own
// Set-Cookie) or log line.
func (w *world) noTokenShown(t *testing.T) {
	w.mu.Lock()
	secrets := append(append([]string(nil), w.sessions...), w.wf.issued()...)
	seen := append(append([]string(nil), w.seen...), w.logs.String())
	w.mu.Unlock()
	for _, secret := range secrets {
		for _, s := range seen {
			if strings.Contains(s, secret) {
				t.Errorf("a token is shown: %.40s… in\n%.300s", secret, s)
				return
			}
		}
	}
}
