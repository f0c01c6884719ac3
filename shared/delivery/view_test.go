package delivery_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// chain is a delivery failed twice and redelivered twice: the first
// attempt and .2 failed, .3 queued.
func (w *ops) chain(t *testing.T) []domain.Delivery {
	t.Helper()
	ctx := context.Background()
	msg := w.deliver(t, 500)
	if _, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "first try", "chain-2"); err != nil {
		t.Fatal(err)
	}
	if f := handle(t, w.d, sqsEvent(t, w.q.messages()...)); len(f) != 0 {
		t.Fatalf("failures %+v", f)
	}
	if _, err := w.o.Redeliver(ctx, w.account, msg.DeliveryID, w.redeliver, "second try", "chain-3"); err != nil {
		t.Fatal(err)
	}
	var out []domain.Delivery
	for _, id := range []string{msg.DeliveryID, msg.DeliveryID + ".2", msg.DeliveryID + ".3"} {
		out = append(out, w.delivery(t, id))
	}
	return out
}

// TestGet: one attempt by id, to an operator with webhook_delivery.view
// or the administrator; never another account's.
func TestGet(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	all := w.chain(t)
	acct, err := w.st.CreateAccount(ctx, "Other", t0)
	if err != nil {
		t.Fatal(err)
	}
	theirViewer, err := w.st.CreateOperator(ctx, acct.ID, "V", []string{domain.PermWebhookDeliveryView}, t0)
	if err != nil {
		t.Fatal(err)
	}
	viewer := domain.Actor{AccountID: w.account, OperatorID: w.viewer}
	tests := []struct {
		name string
		a    domain.Actor
		id   string
		want string // error code; "" for the attempt
	}{
		{"a first attempt", viewer, all[0].ID, ""},
		{"a redelivery", viewer, all[1].ID, ""},
		{"a queued redelivery", viewer, all[2].ID, ""},
		{"the administrator", domain.Actor{AccountID: w.account, Admin: "ops@example.com"}, all[1].ID, ""},
		{"an operator with webhook_endpoint.manage only", domain.Actor{AccountID: w.account, OperatorID: w.redeliver}, all[0].ID, domain.ECodeForbidden},
		{"an operator with no permission of these", domain.Actor{AccountID: w.account, OperatorID: w.nobody}, all[0].ID, domain.ECodeForbidden},
		{"an unknown operator", domain.Actor{AccountID: w.account, OperatorID: 99999}, all[0].ID, domain.ECodeNotFound},
		{"nobody named", domain.Actor{AccountID: w.account}, all[0].ID, domain.ECodeInvalid},
		{"an unknown attempt", viewer, all[0].ID + ".9", domain.ECodeNotFound},
		{"another account's viewer", domain.Actor{AccountID: acct.ID, OperatorID: theirViewer.ID}, all[0].ID, domain.ECodeNotFound},
		{"another account's administrator", domain.Actor{AccountID: acct.ID, Admin: "ops@example.com"}, all[0].ID, domain.ECodeNotFound},
		{"our viewer in another account", domain.Actor{AccountID: acct.ID, OperatorID: w.viewer}, all[0].ID, domain.ECodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.o.Get(ctx, tc.a, tc.id)
			if code(err) != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.want != "" {
				return
			}
			if want := w.delivery(t, tc.id); !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestAttempts: the attempts of the delivery any of them belongs to,
// oldest first, the latest limit of them, to whom Get shows one.
func TestAttempts(t *testing.T) {
	ctx := context.Background()
	w := newOps(t)
	all := w.chain(t)
	single := w.delivery(t, w.deliver(t, 200).DeliveryID)
	viewer := domain.Actor{AccountID: w.account, OperatorID: w.viewer}
	ids := func(ds []domain.Delivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		a     domain.Actor
		id    string
		limit int
		want  []domain.Delivery
		more  int
		err   string
	}{
		{"from the first attempt", viewer, all[0].ID, 0, all, 0, ""},
		{"from a redelivery", viewer, all[1].ID, 0, all, 0, ""},
		{"from the latest", viewer, all[2].ID, 10, all, 0, ""},
		{"the latest two", viewer, all[0].ID, 2, all[1:], 1, ""},
		{"the latest one", viewer, all[1].ID, 1, all[2:], 2, ""},
		{"a delivery of one attempt", viewer, single.ID, 0, []domain.Delivery{single}, 0, ""},
		{"the administrator", domain.Actor{AccountID: w.account, Admin: "ops@example.com"}, all[2].ID, 0, all, 0, ""},
		{"without webhook_delivery.view", domain.Actor{AccountID: w.account, OperatorID: w.redeliver}, all[0].ID, 0, nil, 0, domain.ECodeForbidden},
		{"an unknown attempt", viewer, "dlv_nope", 0, nil, 0, domain.ECodeNotFound},
		{"another account", domain.Actor{AccountID: w.account + 1000, Admin: "ops@example.com"}, all[0].ID, 0, nil, 0, domain.ECodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := w.o.Attempts(ctx, tc.a, tc.id, tc.limit)
			if code(err) != tc.err {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if !reflect.DeepEqual(ids(got), ids(tc.want)) || more != tc.more {
				t.Errorf("got %v and %d more, want %v and %d more", ids(got), more, ids(tc.want), tc.more)
			}
			if tc.err == "" && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("attempts differ from the stored ones:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
