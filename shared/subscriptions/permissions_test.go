package subscriptions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

func TestPermissions(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ep := w.create(t, "https://hooks.example.com/evs")
	other, err := w.st.CreateAccount(ctx, "Other", t0)
	if err != nil {
		t.Fatal(err)
	}
	nobody, err := w.st.CreateOperator(ctx, w.account, "Nadia Nobody", []string{domain.PermReviewDecide}, t0)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		read bool
		call func(subscriptions.Actor) error
	}{
		{"create", false, func(a subscriptions.Actor) error {
			_, err := w.svc.Create(ctx, a, "https://x.example.com/evs", domain.EventTypes(), "")
			return err
		}},
		{"list", true, func(a subscriptions.Actor) error {
			eps, err := w.svc.List(ctx, a)
			for _, e := range eps {
				if e.Secret != "" || e.PreviousSecret != "" {
					t.Errorf("list shows endpoint %d's secret", e.ID)
				}
			}
			return err
		}},
		{"get", true, func(a subscriptions.Actor) error {
			e, err := w.svc.Get(ctx, a, ep.ID)
			if e.Secret != "" || e.PreviousSecret != "" {
				t.Error("get shows the secret")
			}
			return err
		}},
		{"update", false, func(a subscriptions.Actor) error {
			_, err := w.svc.Update(ctx, a, ep.ID, subscriptions.Changes{Description: new("x")})
			return err
		}},
		{"rotate", false, func(a subscriptions.Actor) error { _, err := w.svc.Rotate(ctx, a, ep.ID, time.Hour); return err }},
		{"delete", false, func(a subscriptions.Actor) error { return w.svc.Delete(ctx, a, ep.ID) }},
	}
	// Reading needs less than changing: an operator who may see the
	// deliveries (webhook_delivery.view) may see the endpoints they go to,
	// never their secrets (which List and Get never return). This used to
	// need webhook_endpoint.manage, so the settings area read as the
	// administrator for view-only operators; the rule changed deliberately.
	actors := []struct {
		name        string
		actor       func() subscriptions.Actor
		read, write string // the error code wanted; "" for none
	}{
		{"an operator with webhook_delivery.view only", func() subscriptions.Actor { return w.actor(w.viewer) }, "", domain.ECodeForbidden},
		{"an operator with neither permission", func() subscriptions.Actor { return w.actor(nobody.ID) }, domain.ECodeForbidden, domain.ECodeForbidden},
		{"an unknown operator", func() subscriptions.Actor { return w.actor(99999) }, domain.ECodeNotFound, domain.ECodeNotFound},
		{"another account's operator", func() subscriptions.Actor {
			a := w.actor(w.manager)
			a.AccountID = other.ID
			return a
		}, domain.ECodeNotFound, domain.ECodeNotFound},
		{"no action id", func() subscriptions.Actor { a := w.actor(w.manager); a.ActionID = " "; return a }, domain.ECodeInvalid, domain.ECodeInvalid},
		{"no account", func() subscriptions.Actor { a := w.actor(w.manager); a.AccountID = 0; return a }, domain.ECodeInvalid, domain.ECodeInvalid},
	}
	for _, ac := range actors {
		for _, c := range calls {
			t.Run(ac.name+"/"+c.name, func(t *testing.T) {
				a := ac.actor()
				want := ac.write
				if c.read {
					want = ac.read
				}
				err := c.call(a)
				if code(err) != want {
					t.Errorf("err = %v, want %q", err, want)
				}
				if want == domain.ECodeForbidden && c.read && !strings.Contains(domain.ErrorMessage(err), "webhook_endpoint.manage or webhook_delivery.view") {
					t.Errorf("the refusal does not name both permissions: %v", err)
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

	// The account's administrator (operator 0, at the command line) reads
	// and changes; a read needs no action id.
	for _, c := range calls[1:3] {
		if err := c.call(subscriptions.Actor{AccountID: w.account}); err != nil {
			t.Errorf("administrator's %s: %v", c.name, err)
		}
		if err := c.call(subscriptions.Actor{AccountID: w.account, OperatorID: w.viewer}); err != nil {
			t.Errorf("viewer's %s without an action id: %v", c.name, err)
		}
	}
	admin := w.actor(0)
	if err := calls[3].call(admin); err != nil {
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
