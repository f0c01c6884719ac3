package subscriptions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// These tests run against DynamoDB Local.

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

func TestCreate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	loopback, err := webhooks.ParseAllowList("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	all := domain.EventTypes()
	tests := []struct {
		name   string
		allow  webhooks.AllowList
		url    string
		events []domain.EventType
		field  string // the field refused; "" when created
		msg    string
		want   []domain.EventType
	}{
		{name: "https", url: "https://hooks.example.com/evs", events: []domain.EventType{domain.EventApproved}},
		{name: "https with a port and a query", url: "https://hooks.example.com:8443/evs?source=kyb", events: all},
		{name: "duplicate events kept once", url: "https://hooks.example.com/evs",
			events: []domain.EventType{domain.EventRejected, domain.EventApproved, domain.EventRejected},
			want:   []domain.EventType{domain.EventApproved, domain.EventRejected}},
		{name: "http to an allow-listed loopback", allow: loopback, url: "http://127.0.0.1:9999/hook", events: all},
		{name: "http to allow-listed localhost", allow: loopback, url: "http://localhost:9999/hook", events: all},
		{name: "http", url: "http://hooks.example.com/evs", events: all, field: "url", msg: "must use https"},
		{name: "http, loopback allow-listed but the host public", allow: loopback, url: "http://hooks.example.com/evs", events: all, field: "url", msg: "must use https"},
		{name: "http to loopback, no allow-list", url: "http://127.0.0.1:9999/hook", events: all, field: "url", msg: "internal address"},
		{name: "https to loopback, no allow-list", url: "https://127.0.0.1/hook", events: all, field: "url", msg: "internal address"},
		{name: "https to localhost, no allow-list", url: "https://localhost/hook", events: all, field: "url", msg: "internal address"},
		{name: "a private address", url: "https://10.1.2.3/hook", events: all, field: "url", msg: "internal address"},
		{name: "the metadata service", allow: loopback, url: "http://169.254.169.254/latest", events: all, field: "url", msg: "internal address"},
		{name: "another scheme", url: "ftp://hooks.example.com/evs", events: all, field: "url", msg: "https"},
		{name: "credentials in the url", url: "https://user:pw@hooks.example.com/evs", events: all, field: "url", msg: "user name or password"},
		{name: "a relative url", url: "/hooks/evs", events: all, field: "url", msg: "absolute"},
		{name: "a blank url", url: " ", events: all, field: "url", msg: "required"},
		{name: "an unknown event", url: "https://hooks.example.com/evs", events: []domain.EventType{domain.EventApproved, "entity.created"}, field: "events", msg: `"entity.created" is not an event`},
		{name: "an event named in the wrong case", url: "https://hooks.example.com/evs", events: []domain.EventType{"Entity_Review.Approved"}, field: "events"},
		{name: "no events", url: "https://hooks.example.com/evs", events: nil, field: "events", msg: "can't be blank"},
		{name: "an empty list of events", url: "https://hooks.example.com/evs", events: []domain.EventType{}, field: "events", msg: "can't be blank"},
		{name: "a blank event", url: "https://hooks.example.com/evs", events: []domain.EventType{""}, field: "events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.svc.Allow = tc.allow
			w.clock = w.clock.Add(time.Minute)
			before, err := w.st.Endpoints(ctx, w.account, domain.ReadStrong)
			if err != nil {
				t.Fatal(err)
			}
			a := w.actor(w.manager)
			ep, err := w.svc.Create(ctx, a, tc.url, tc.events, "Orders system")
			if tc.field != "" {
				fields := domain.ErrorFields(err)
				if code(err) != domain.ECodeInvalid || len(fields[tc.field]) == 0 || !strings.Contains(fields[tc.field][0], tc.msg) {
					t.Errorf("err = %v, want %s refused with %q", err, tc.field, tc.msg)
				}
				after, _ := w.st.Endpoints(ctx, w.account, domain.ReadStrong)
				if len(after) != len(before) {
					t.Errorf("an endpoint was stored")
				}
				if _, err := w.st.AuditRecord(ctx, w.account, a.ActionID); code(err) != domain.ECodeNotFound {
					t.Errorf("an audit record was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = tc.events
			}
			if ep.ID == 0 || ep.AccountID != w.account || ep.URL != tc.url || !reflect.DeepEqual(sorted(ep.Events), sorted(want)) || !ep.Active ||
				ep.Version != 1 || ep.Description != "Orders system" || !ep.CreatedAt.Equal(w.clock) || !ep.UpdatedAt.Equal(w.clock) ||
				ep.PreviousSecret != "" || ep.PreviousExpiresAt != nil {
				t.Errorf("created %+v", ep)
			}
			if !secretPattern.MatchString(ep.Secret) {
				t.Errorf("secret %q, want %s and 64 hex digits", ep.Secret, subscriptions.SecretPrefix)
			}
			got := w.stored(t, ep.ID)
			got.Events = sorted(got.Events)
			ep.Events = sorted(ep.Events)
			if !reflect.DeepEqual(got, ep) {
				t.Errorf("stored\n got %+v\nwant %+v", got, ep)
			}
			rec := w.audit(t, a.ActionID)
			if rec.Action != domain.ActionEndpointCreate || rec.OperatorID != w.manager || rec.OperatorName != "Mona Manager" || !rec.At.Equal(w.clock) ||
				rec.After["endpoint_id"] != float64(ep.ID) || rec.After["url"] != tc.url || rec.After["active"] != true {
				t.Errorf("audit = %+v", rec)
			}
			noSecrets(t, rec, ep.Secret)
		})
	}
}

func TestSecretShownOnce(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a := w.create(t, "https://a.example.com/evs")
	b := w.create(t, "https://b.example.com/evs")
	if a.Secret == b.Secret || !secretPattern.MatchString(a.Secret) {
		t.Errorf("secrets %q, %q", a.Secret, b.Secret)
	}
	rotated, err := w.svc.Rotate(ctx, w.actor(w.manager), b.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !secretPattern.MatchString(rotated.Secret) || rotated.Secret == b.Secret {
		t.Errorf("rotation shows secret %q", rotated.Secret)
	}
	list, err := w.svc.List(ctx, w.actor(w.manager))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("listed %+v", list)
	}
	for _, ep := range list {
		if ep.Secret != "" || ep.PreviousSecret != "" {
			t.Errorf("List shows the secrets of %d", ep.ID)
		}
	}
	if list[1].PreviousExpiresAt == nil {
		t.Errorf("List hides when the rotation ends")
	}
	updated, err := w.svc.Update(ctx, w.actor(w.manager), a.ID, subscriptions.Changes{Description: new("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Secret != "" || updated.PreviousSecret != "" {
		t.Errorf("Update shows the secret")
	}
	// The delivery function still reads them.
	if got := w.stored(t, a.ID); got.Secret != a.Secret {
		t.Errorf("stored secret changed")
	}
	if got := w.stored(t, b.ID); got.Secret != rotated.Secret || got.PreviousSecret != b.Secret {
		t.Errorf("stored secrets after rotation: %q, %q", got.Secret, got.PreviousSecret)
	}
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ep := w.create(t, "https://hooks.example.com/evs", domain.EventApproved, domain.EventRejected)
	tests := []struct {
		name  string
		c     subscriptions.Changes
		field string // refused
		check func(*testing.T, domain.Endpoint)
	}{
		{name: "url", c: subscriptions.Changes{URL: new("https://new.example.com/hooks")}, check: func(t *testing.T, e domain.Endpoint) {
			if e.URL != "https://new.example.com/hooks" {
				t.Errorf("url %s", e.URL)
			}
		}},
		{name: "events", c: subscriptions.Changes{Events: []domain.EventType{domain.EventAssigned, domain.EventAssigned, domain.EventChecksQueued}}, check: func(t *testing.T, e domain.Endpoint) {
			if !reflect.DeepEqual(sorted(e.Events), []domain.EventType{domain.EventAssigned, domain.EventChecksQueued}) {
				t.Errorf("events %v", e.Events)
			}
			if !e.Subscribes(domain.EventAssigned) || e.Subscribes(domain.EventApproved) {
				t.Errorf("subscriptions %v", e.Events)
			}
		}},
		{name: "description", c: subscriptions.Changes{Description: new("ERP")}, check: func(t *testing.T, e domain.Endpoint) {
			if e.Description != "ERP" || e.URL != "https://new.example.com/hooks" {
				t.Errorf("endpoint %+v", e)
			}
		}},
		{name: "deactivate", c: subscriptions.Changes{Active: new(false)}, check: func(t *testing.T, e domain.Endpoint) {
			if e.Active || e.Subscribes(domain.EventAssigned) {
				t.Errorf("still active: %+v", e)
			}
		}},
		{name: "reactivate", c: subscriptions.Changes{Active: new(true)}, check: func(t *testing.T, e domain.Endpoint) {
			if !e.Active || !e.Subscribes(domain.EventAssigned) {
				t.Errorf("not active: %+v", e)
			}
		}},
		{name: "an http url", c: subscriptions.Changes{URL: new("http://new.example.com/hooks")}, field: "url"},
		{name: "no events", c: subscriptions.Changes{Events: []domain.EventType{}}, field: "events"},
		{name: "an unknown event", c: subscriptions.Changes{Events: []domain.EventType{"entity_review.created"}}, field: "events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.clock = w.clock.Add(time.Minute)
			before := w.stored(t, ep.ID)
			a := w.actor(w.manager)
			got, err := w.svc.Update(ctx, a, ep.ID, tc.c)
			after := w.stored(t, ep.ID)
			if tc.field != "" {
				if code(err) != domain.ECodeInvalid || len(domain.ErrorFields(err)[tc.field]) == 0 {
					t.Errorf("err = %v, want %s refused", err, tc.field)
				}
				if !reflect.DeepEqual(after, before) {
					t.Errorf("changed: %+v", after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if after.Version != before.Version+1 || !after.UpdatedAt.Equal(w.clock) || !after.CreatedAt.Equal(before.CreatedAt) || after.Secret != before.Secret {
				t.Errorf("stored %+v after %+v", after, before)
			}
			if got.Version != after.Version || got.URL != after.URL || got.Active != after.Active {
				t.Errorf("returned %+v, stored %+v", got, after)
			}
			tc.check(t, after)
			rec := w.audit(t, a.ActionID)
			if rec.Action != domain.ActionEndpointUpdate || rec.OperatorID != w.manager || rec.Before["url"] != before.URL ||
				rec.After["url"] != after.URL || rec.Before["active"] != before.Active || rec.After["active"] != after.Active ||
				rec.After["description"] != after.Description {
				t.Errorf("audit %+v", rec)
			}
			noSecrets(t, rec, after.Secret)
		})
	}
}

// An endpoint saved under an allow-list that no longer permits it can still
// be deactivated or resubscribed; only a new URL is checked.
func TestUpdateKeepsCheckedURL(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.svc.Allow, _ = webhooks.ParseAllowList("127.0.0.0/8")
	ep := w.create(t, "http://127.0.0.1:9999/hook")
	w.svc.Allow = webhooks.AllowList{}
	if _, err := w.svc.Update(ctx, w.actor(w.manager), ep.ID, subscriptions.Changes{Active: new(false)}); err != nil {
		t.Errorf("deactivate: %v", err)
	}
	if _, err := w.svc.Update(ctx, w.actor(w.manager), ep.ID, subscriptions.Changes{Events: domain.EventTypes()}); err != nil {
		t.Errorf("resubscribe: %v", err)
	}
	if _, err := w.svc.Update(ctx, w.actor(w.manager), ep.ID, subscriptions.Changes{URL: new("http://127.0.0.1:9998/hook")}); code(err) != domain.ECodeInvalid {
		t.Errorf("a new loopback url: %v, want refused", err)
	}
	if got := w.stored(t, ep.ID); got.Active || len(got.Events) != len(domain.EventTypes()) || got.URL != ep.URL {
		t.Errorf("stored %+v", got)
	}
}

func TestRotate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	tests := []struct {
		name    string
		overlap time.Duration
		until   time.Duration // the old secret's end; 0 when refused
	}{
		{"default overlap", 0, subscriptions.DefaultOverlap},
		{"an hour", time.Hour, time.Hour},
		{"the longest", subscriptions.MaxOverlap, subscriptions.MaxOverlap},
		{"negative", -time.Hour, 0},
		{"too long", subscriptions.MaxOverlap + time.Second, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep := w.create(t, "https://hooks.example.com/evs")
			w.clock = w.clock.Add(time.Minute)
			now := w.clock
			a := w.actor(w.manager)
			got, err := w.svc.Rotate(ctx, a, ep.ID, tc.overlap)
			stored := w.stored(t, ep.ID)
			if tc.until == 0 {
				if code(err) != domain.ECodeInvalid || len(domain.ErrorFields(err)["overlap"]) == 0 {
					t.Errorf("err = %v, want overlap refused", err)
				}
				if stored.Secret != ep.Secret || stored.Version != 1 {
					t.Errorf("rotated anyway")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !secretPattern.MatchString(got.Secret) || got.Secret == ep.Secret || stored.Secret != got.Secret || stored.PreviousSecret != ep.Secret ||
				stored.PreviousExpiresAt == nil || !stored.PreviousExpiresAt.Equal(now.Add(tc.until)) || stored.Version != 2 {
				t.Errorf("rotated %+v, stored %+v", got, stored)
			}
			for _, at := range []struct {
				at   time.Time
				want []string
			}{
				{now, []string{got.Secret, ep.Secret}},
				{now.Add(tc.until - time.Millisecond), []string{got.Secret, ep.Secret}},
				{now.Add(tc.until), []string{got.Secret}},
				{now.Add(tc.until + time.Hour), []string{got.Secret}},
			} {
				if s := stored.SigningSecrets(at.at); !slices.Equal(s, at.want) {
					t.Errorf("signing secrets at +%s: %d, want %d", at.at.Sub(now), len(s), len(at.want))
				}
			}
			rec := w.audit(t, a.ActionID)
			if rec.Action != domain.ActionEndpointRotate || rec.After["previous_secret_expires_at"] != domain.FormatTime(now.Add(tc.until)) {
				t.Errorf("audit %+v", rec)
			}
			noSecrets(t, rec, got.Secret, ep.Secret)
		})
	}
	t.Run("twice: the latest old secret signs", func(t *testing.T) {
		ep := w.create(t, "https://hooks.example.com/evs")
		first, err := w.svc.Rotate(ctx, w.actor(w.manager), ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		second, err := w.svc.Rotate(ctx, w.actor(w.manager), ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if s := w.stored(t, ep.ID).SigningSecrets(w.clock); !slices.Equal(s, []string{second.Secret, first.Secret}) {
			t.Errorf("signing with %d secrets", len(s))
		}
	})
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	keep := w.create(t, "https://keep.example.com/evs")
	gone := w.create(t, "https://gone.example.com/evs")
	a := w.actor(w.manager)
	if err := w.svc.Delete(ctx, a, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.Endpoint(ctx, w.account, gone.ID); code(err) != domain.ECodeNotFound {
		t.Errorf("still there: %v", err)
	}
	list, err := w.svc.List(ctx, w.actor(w.manager))
	if err != nil || len(list) != 1 || list[0].ID != keep.ID {
		t.Errorf("listed %+v (%v)", list, err)
	}
	rec := w.audit(t, a.ActionID)
	if rec.Action != domain.ActionEndpointDelete || rec.Before["endpoint_id"] != float64(gone.ID) || rec.Before["url"] != gone.URL || len(rec.After) != 0 {
		t.Errorf("audit %+v", rec)
	}
	noSecrets(t, rec, gone.Secret)
	if err := w.svc.Delete(ctx, w.actor(w.manager), gone.ID); code(err) != domain.ECodeNotFound {
		t.Errorf("delete again: %v", err)
	}
	if _, err := w.svc.Update(ctx, w.actor(w.manager), gone.ID, subscriptions.Changes{Active: new(false)}); code(err) != domain.ECodeNotFound {
		t.Errorf("update a deleted endpoint: %v", err)
	}
}

func TestPermissions(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ep := w.create(t, "https://hooks.example.com/evs")
	other, err := w.st.CreateAccount(ctx, "Other", t0)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(subscriptions.Actor) error{
		"create": func(a subscriptions.Actor) error {
			_, err := w.svc.Create(ctx, a, "https://x.example.com/evs", domain.EventTypes(), "")
			return err
		},
		"list": func(a subscriptions.Actor) error { _, err := w.svc.List(ctx, a); return err },
		"update": func(a subscriptions.Actor) error {
			_, err := w.svc.Update(ctx, a, ep.ID, subscriptions.Changes{Description: new("x")})
			return err
		},
		"rotate": func(a subscriptions.Actor) error { _, err := w.svc.Rotate(ctx, a, ep.ID, time.Hour); return err },
		"delete": func(a subscriptions.Actor) error { return w.svc.Delete(ctx, a, ep.ID) },
	}
	actors := []struct {
		name  string
		actor func() subscriptions.Actor
		want  string
	}{
		{"an operator without webhook_endpoint.manage", func() subscriptions.Actor { return w.actor(w.viewer) }, domain.ECodeForbidden},
		{"an unknown operator", func() subscriptions.Actor { return w.actor(99999) }, domain.ECodeNotFound},
		{"another account's operator", func() subscriptions.Actor {
			a := w.actor(w.manager)
			a.AccountID = other.ID
			return a
		}, domain.ECodeNotFound},
		{"no action id", func() subscriptions.Actor { a := w.actor(w.manager); a.ActionID = " "; return a }, domain.ECodeInvalid},
		{"no account", func() subscriptions.Actor { a := w.actor(w.manager); a.AccountID = 0; return a }, domain.ECodeInvalid},
	}
	for _, ac := range actors {
		for _, name := range []string{"create", "list", "update", "rotate", "delete"} {
			t.Run(ac.name+"/"+name, func(t *testing.T) {
				a := ac.actor()
				if err := calls[name](a); code(err) != ac.want {
					t.Errorf("err = %v, want %s", err, ac.want)
				}
				if _, err := w.st.AuditRecord(ctx, a.AccountID, a.ActionID); code(err) != domain.ECodeNotFound {
					t.Errorf("audited")
				}
			})
		}
	}
	if got := w.stored(t, ep.ID); got.Version != 1 || got.Secret != ep.Secret {
		t.Errorf("endpoint changed: %+v", got)
	}
	eps, _ := w.st.Endpoints(ctx, w.account, domain.ReadStrong)
	if len(eps) != 1 {
		t.Errorf("%d endpoints", len(eps))
	}

	// The account's administrator (operator 0, at the command line).
	admin := w.actor(0)
	if err := calls["update"](admin); err != nil {
		t.Errorf("administrator: %v", err)
	}
	if rec := w.audit(t, admin.ActionID); rec.OperatorID != 0 || rec.OperatorName != "account administrator" {
		t.Errorf("audit %+v", rec)
	}
	// Not for an account that does not exist.
	if _, err := w.svc.Create(ctx, subscriptions.Actor{AccountID: 424242, ActionID: "nowhere"}, "https://x.example.com/evs", domain.EventTypes(), ""); code(err) != domain.ECodeNotFound {
		t.Errorf("create in a missing account: %v", err)
	}
}

// racing is the store with another change landing between the service's
// read of an endpoint and its write.
type racing struct {
	*store.Store
	race func()
}

func (r *racing) Endpoint(ctx context.Context, accountID, id int64) (domain.Endpoint, error) {
	ep, err := r.Store.Endpoint(ctx, accountID, id)
	if r.race != nil {
		race := r.race
		r.race = nil
		race()
	}
	return ep, err
}

func TestStaleVersion(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rs := &racing{Store: w.st}
	svc := &subscriptions.Service{Store: rs, Clock: w.svc.Clock}
	calls := []struct {
		name string
		call func(subscriptions.Actor, int64) error
	}{
		{"update", func(a subscriptions.Actor, id int64) error {
			_, err := svc.Update(ctx, a, id, subscriptions.Changes{URL: new("https://mine.example.com/evs")})
			return err
		}},
		{"rotate", func(a subscriptions.Actor, id int64) error { _, err := svc.Rotate(ctx, a, id, time.Hour); return err }},
		{"delete", func(a subscriptions.Actor, id int64) error { return svc.Delete(ctx, a, id) }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			ep := w.create(t, "https://hooks.example.com/evs")
			rs.race = func() {
				if _, err := w.svc.Update(ctx, w.actor(w.manager), ep.ID, subscriptions.Changes{Active: new(false)}); err != nil {
					t.Fatal(err)
				}
			}
			a := w.actor(w.manager)
			if err := c.call(a, ep.ID); code(err) != domain.ECodeConflict {
				t.Errorf("err = %v, want conflict", err)
			}
			got := w.stored(t, ep.ID)
			if got.Version != 2 || got.Active || got.URL != ep.URL || got.Secret != ep.Secret {
				t.Errorf("stored %+v: the stale write landed", got)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, a.ActionID); code(err) != domain.ECodeNotFound {
				t.Errorf("the refused change was audited")
			}
		})
	}
	t.Run("store", func(t *testing.T) {
		ep := w.create(t, "https://hooks.example.com/evs")
		stale := ep
		ep.Description = "first"
		if _, err := w.st.UpdateEndpoint(ctx, ep, domain.AuditRecord{AccountID: w.account, ActionID: "s-1", Action: domain.ActionEndpointUpdate, At: t0}); err != nil {
			t.Fatal(err)
		}
		stale.Description = "second"
		if _, err := w.st.UpdateEndpoint(ctx, stale, domain.AuditRecord{AccountID: w.account, ActionID: "s-2", Action: domain.ActionEndpointUpdate, At: t0}); !errors.Is(err, domain.ErrStale) {
			t.Errorf("update at a stale version: %v", err)
		}
		if err := w.st.DeleteEndpoint(ctx, w.account, ep.ID, 1, domain.AuditRecord{AccountID: w.account, ActionID: "s-3", Action: domain.ActionEndpointDelete, At: t0}); !errors.Is(err, domain.ErrStale) {
			t.Errorf("delete at a stale version: %v", err)
		}
		if got := w.stored(t, ep.ID); got.Description != "first" || got.Version != 2 {
			t.Errorf("stored %+v", got)
		}
	})
}

// An action id names one change: used again, it changes nothing and says so.
func TestActionIDUsedTwice(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a := w.actor(w.manager)
	ep, err := w.svc.Create(ctx, a, "https://hooks.example.com/evs", domain.EventTypes(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Create(ctx, a, "https://other.example.com/evs", domain.EventTypes(), ""); code(err) != domain.ECodeConflict {
		t.Errorf("create with a used action id: %v, want conflict", err)
	}
	if eps, _ := w.st.Endpoints(ctx, w.account, domain.ReadStrong); len(eps) != 1 {
		t.Errorf("%d endpoints", len(eps))
	}
	if _, err := w.svc.Update(ctx, a, ep.ID, subscriptions.Changes{Active: new(false)}); code(err) != domain.ECodeConflict {
		t.Errorf("update with a used action id: %v, want conflict", err)
	}
	if err := w.svc.Delete(ctx, a, ep.ID); code(err) != domain.ECodeConflict {
		t.Errorf("delete with a used action id: %v, want conflict", err)
	}
	if got := w.stored(t, ep.ID); got.Version != 1 || !got.Active {
		t.Errorf("stored %+v", got)
	}
	if rec := w.audit(t, a.ActionID); rec.Action != domain.ActionEndpointCreate {
		t.Errorf("audit %+v", rec)
	}
}
