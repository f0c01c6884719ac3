package subscriptions_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// These tests run against DynamoDB Local.

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
