package subscriptions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

var secretPattern = regexp.MustCompile(`^` + regexp.QuoteMeta(subscriptions.SecretPrefix) + `[0-9a-f]{64}$`)

type world struct {
	st      *store.Store
	svc     *subscriptions.Service
	account int64
	manager int64 // holds webhook_endpoint.manage
	viewer  int64 // holds webhook_delivery.view only
	clock   time.Time
	seq     int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, err := st.CreateAccount(ctx, "Endpoints "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{st: st, account: acct.ID, clock: t0}
	op := func(name string, perms ...string) int64 {
		o, err := st.CreateOperator(ctx, acct.ID, name, perms, t0)
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	w.manager = op("Mona Manager", domain.PermWebhookEndpointEdit)
	w.viewer = op("Vera Viewer", domain.PermWebhookDeliveryView, domain.PermReviewDecide)
	w.svc = &subscriptions.Service{Store: st, Clock: func() time.Time { return w.clock }}
	return w
}

func (w *world) actor(operator int64) subscriptions.Actor {
	w.seq++
	return subscriptions.Actor{AccountID: w.account, OperatorID: operator, ActionID: fmt.Sprintf("act-%d", w.seq)}
}

func (w *world) create(t *testing.T, url string, events ...domain.EventType) domain.Endpoint {
	t.Helper()
	if len(events) == 0 {
		events = []domain.EventType{domain.EventApproved}
	}
	ep, err := w.svc.Create(context.Background(), w.actor(w.manager), url, events, "")
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func (w *world) stored(t *testing.T, id int64) domain.Endpoint {
	t.Helper()
	ep, err := w.st.Endpoint(context.Background(), w.account, id)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func (w *world) audit(t *testing.T, actionID string) domain.AuditRecord {
	t.Helper()
	rec, err := w.st.AuditRecord(context.Background(), w.account, actionID)
	if err != nil {
		t.Fatalf("audit record %s: %v", actionID, err)
	}
	return rec
}

func code(err error) string { return domain.ErrorCode(err) }

func sorted(ts []domain.EventType) []domain.EventType {
	out := slices.Clone(ts)
	slices.Sort(out)
	return out
}

// noSecrets fails when a secret shows in an audit record.
func noSecrets(t *testing.T, rec domain.AuditRecord, secrets ...string) {
	t.Helper()
	b, _ := json.Marshal(rec)
	for _, s := range secrets {
		if s != "" && strings.Contains(string(b), s) {
			t.Errorf("audit record %s holds a secret", rec.ActionID)
		}
	}
}
