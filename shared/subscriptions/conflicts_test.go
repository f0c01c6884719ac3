package subscriptions_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

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
