package subscriptions_test

import (
	"context"
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
