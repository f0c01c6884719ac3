package subscriptions_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

// TestUpdateThatChangesNothing: changes that leave the endpoint as stored
// write nothing (the same version, no audit record) and say so; an action
// id that named an earlier change is still refused; a change that changes
// something says so.
func TestUpdateThatChangesNothing(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ep := w.create(t, "https://hooks.example.com/evs", domain.EventApproved, domain.EventRejected)
	w.clock = w.clock.Add(time.Minute)
	tests := []struct {
		name string
		c    subscriptions.Changes
	}{
		{"every field as it is", subscriptions.Changes{URL: new(ep.URL), Events: []domain.EventType{domain.EventRejected, domain.EventApproved, domain.EventApproved},
			Active: new(true), Description: new("")}},
		{"the url alone", subscriptions.Changes{URL: new(ep.URL)}},
		{"activate an active endpoint", subscriptions.Changes{Active: new(true)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := w.stored(t, ep.ID)
			a := w.actor(w.manager)
			got, changed, err := w.svc.UpdateChanged(ctx, a, ep.ID, tc.c)
			if err != nil || changed {
				t.Fatalf("changed %v, err %v: want unchanged", changed, err)
			}
			if after := w.stored(t, ep.ID); !reflect.DeepEqual(after, before) {
				t.Errorf("stored %+v, was %+v", after, before)
			}
			if got.Version != before.Version || got.Secret != "" || got.URL != before.URL {
				t.Errorf("answered %+v", got)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, a.ActionID); code(err) != domain.ECodeNotFound {
				t.Errorf("audited: %v", err)
			}
		})
	}

	// Deactivating twice: the second writes nothing.
	off := w.actor(w.manager)
	if _, changed, err := w.svc.UpdateChanged(ctx, off, ep.ID, subscriptions.Changes{Active: new(false)}); err != nil || !changed {
		t.Fatalf("deactivate: changed %v, %v", changed, err)
	}
	before := w.stored(t, ep.ID)
	if _, changed, err := w.svc.UpdateChanged(ctx, w.actor(w.manager), ep.ID, subscriptions.Changes{Active: new(false)}); err != nil || changed {
		t.Errorf("deactivate again: changed %v, %v", changed, err)
	}
	// The first deactivation's action id again, now with nothing to change:
	// refused as used, as before.
	if _, err := w.svc.Update(ctx, off, ep.ID, subscriptions.Changes{Active: new(false)}); code(err) != domain.ECodeConflict {
		t.Errorf("a used action id: %v, want conflict", err)
	}
	if after := w.stored(t, ep.ID); !reflect.DeepEqual(after, before) || after.Version != ep.Version+1 {
		t.Errorf("stored %+v, was %+v", after, before)
	}
	// Permissions come first: a viewer changing nothing is still refused.
	if _, _, err := w.svc.UpdateChanged(ctx, w.actor(w.viewer), ep.ID, subscriptions.Changes{Active: new(false)}); code(err) != domain.ECodeForbidden {
		t.Errorf("a viewer: %v, want forbidden", err)
	}
}
