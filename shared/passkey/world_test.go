package passkey_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/store"
)

const (
	origin = "http://localhost:3000"
	rpID   = "localhost"
)

// The store is what the service runs over in production.
var _ passkey.Store = (*store.Store)(nil)

func config() passkey.Config {
	return passkey.Config{RPID: rpID, RPDisplayName: "EVS", Origins: []string{origin}}
}

// world is an account on DynamoDB Local with operators, and the service
// over the real store at a clock the test moves. The clock starts at the
// wall clock's time: DynamoDB Local removes items past their TTL.
type world struct {
	st   *store.Store
	svc  *passkey.Service
	acct int64
	now  time.Time
	seq  int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	st := devstacktest.Store(t)
	w := &world{st: st, now: time.Now().UTC().Truncate(time.Second)}
	w.svc = &passkey.Service{Store: st, Clock: func() time.Time { return w.now }, Config: config()}
	acct, err := st.CreateAccount(context.Background(), "Passkeys "+t.Name(), w.now)
	if err != nil {
		t.Fatal(err)
	}
	w.acct = acct.ID
	return w
}

// operator adds an active operator.
func (w *world) operator(t *testing.T, name string) domain.Operator {
	t.Helper()
	op, err := w.st.CreateOperator(context.Background(), w.acct, name, nil, w.now)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// disable disables op in the store.
func (w *world) disable(t *testing.T, op domain.Operator) {
	t.Helper()
	op.DisabledAt = &w.now
	if err := w.st.UpdateOperator(context.Background(), op, w.audit(domain.ActionOperatorDisable)); err != nil {
		t.Fatal(err)
	}
}

func (w *world) audit(a domain.Action) domain.AuditRecord {
	return domain.AuditRecord{AccountID: w.acct, ActionID: w.actionID(string(a)), Action: a, At: w.now}
}

func (w *world) actionID(prefix string) string {
	w.seq++
	return fmt.Sprintf("%s-%d", prefix, w.seq)
}

// as is op acting for themselves.
func (w *world) as(op domain.Operator) domain.Actor {
	return domain.Actor{AccountID: op.AccountID, OperatorID: op.ID, ActionID: w.actionID("act")}
}

// admin is the account's administrator.
func (w *world) admin() domain.Actor {
	return domain.Actor{AccountID: w.acct, Admin: "admin@example.com", ActionID: w.actionID("admin")}
}

// register registers a new passkey of auth for op.
func (w *world) register(t *testing.T, auth *passkeytest.Authenticator, op domain.Operator, name string) domain.Passkey {
	t.Helper()
	ctx := context.Background()
	opts, err := w.svc.BeginRegistration(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := auth.Register(opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.svc.FinishRegistration(ctx, w.as(op), op, name, resp)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// holder is an operator with one registered passkey.
type holder struct {
	op   domain.Operator
	auth *passkeytest.Authenticator
	pk   domain.Passkey
}

func (w *world) holder(t *testing.T, name string) holder {
	t.Helper()
	op := w.operator(t, name)
	auth := passkeytest.New(origin, rpID)
	return holder{op: op, auth: auth, pk: w.register(t, auth, op, "")}
}

// loginResponse begins a sign-in and answers it with auth.
func (w *world) loginResponse(t *testing.T, auth *passkeytest.Authenticator) []byte {
	t.Helper()
	opts, err := w.svc.BeginLogin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := auth.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// regressions are the account's audit records of counters that went back.
func (w *world) regressions(t *testing.T) []domain.AuditRecord {
	t.Helper()
	recs, err := w.st.AccountAudit(context.Background(), w.acct, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.AuditRecord
	for _, r := range recs {
		if r.Action == domain.ActionPasskeyCounterRegressed {
			out = append(out, r)
		}
	}
	return out
}

// regressionOf is the regression record naming passkey p, if any.
func (w *world) regressionOf(t *testing.T, p domain.Passkey) (domain.AuditRecord, bool) {
	t.Helper()
	for _, r := range w.regressions(t) {
		if r.After["credential_id"] == base64.RawURLEncoding.EncodeToString(p.ID) {
			return r, true
		}
	}
	return domain.AuditRecord{}, false
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// options decodes an options object for a look at it.
func options(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
