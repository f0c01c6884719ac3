package admin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/shared/domain"
)

// delivery.get shows one attempt through delivery.Redeliverer.Get: to the
// administrator, or an operator with webhook_delivery.view; never another
// account's.
func TestDeliveryGet(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Gets", "countries": ["SA"]}`), "account")["id"])
	other := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Others", "countries": ["SA"]}`), "account")["id"])
	manager := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "M", "permissions": ["webhook_endpoint.manage"]}`, actor, acct)), "operator")["id"])
	viewer := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "V", "permissions": ["webhook_delivery.view"]}`, actor, acct)), "operator")["id"])
	ep := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/evs", "events": ["assigned"]}`, actor, acct)), "endpoint")["id"])
	id := fmt.Sprint(obj(w.must(fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": %d}`, actor, acct, ep)), "delivery")["id"])

	get := func(account int64, by string) string {
		return fmt.Sprintf(`{"command": "delivery.get", %s, "account_id": %d, "delivery_id": %q%s}`, actor, account, id, by)
	}
	for _, by := range []string{"", fmt.Sprintf(`, "operator_id": %d`, viewer)} {
		d := obj(w.must(get(acct, by)), "delivery")
		if d["id"] != id || d["event_type"] != "ping" || num(d["endpoint_id"]) != ep {
			t.Errorf("delivery.get%s = %v", by, d)
		}
	}
	for _, tc := range []struct{ name, doc, failure, says string }{
		{"an operator without webhook_delivery.view", get(acct, fmt.Sprintf(`, "operator_id": %d`, manager)), "Forbidden", "webhook_delivery.view"},
		{"an unknown operator", get(acct, `, "operator_id": 987654`), "NotFound", "has no operator 987654"},
		{"an unknown delivery", strings.Replace(get(acct, ""), id, "dlv_nope", 1), "NotFound", "has no delivery dlv_nope"},
		{"another account's delivery", get(other, ""), "NotFound", "has no delivery " + id},
		{"our viewer in another account", get(other, fmt.Sprintf(`, "operator_id": %d`, viewer)), "NotFound", fmt.Sprintf("has no operator %d", viewer)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.call(tc.doc)
			if failure(err) != tc.failure || !strings.Contains(fmt.Sprint(err), tc.says) {
				t.Errorf("%v, want %s saying %q", err, tc.failure, tc.says)
			}
		})
	}
}

// delivery.list's created_from and created_before (RFC 3339) bound the
// listing by when the attempts were created: from included, before
// excluded; a range that ends before it starts is refused.
func TestDeliveryListRange(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Ranges", "countries": ["SA"]}`), "account")["id"])
	viewer := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "V", "permissions": ["webhook_delivery.view"]}`, actor, acct)), "operator")["id"])
	// One attempt an hour from 10:00 to 13:00 (UTC), on endpoint 3.
	for i := range 4 {
		at := time.Date(2026, 11, 1, 10+i, 0, 0, 0, time.UTC)
		d := domain.Delivery{AccountID: acct, ID: fmt.Sprintf("dlv_%d", 10+i), Attempt: 1, EndpointID: 3, EventID: fmt.Sprintf("evt_%d", i),
			Event: domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: acct}, Payload: []byte(`{}`), CreatedAt: at}
		if _, _, err := w.st.ClaimDelivery(context.Background(), d, at, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	list := func(fields string) string {
		return fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d%s}`, actor, acct, fields)
	}
	for _, tc := range []struct{ name, fields, want string }{
		{"open", ``, "dlv_13 dlv_12 dlv_11 dlv_10"},
		{"from", `, "created_from": "2026-11-01T12:00:00Z"`, "dlv_13 dlv_12"},
		{"before", `, "created_before": "2026-11-01T12:00:00Z"`, "dlv_11 dlv_10"},
		{"both, with an offset and a fraction", `, "created_from": "2026-11-01T13:59:59.5+03:00", "created_before": "2026-11-01T12:00:00.001Z"`, "dlv_12 dlv_11"},
		{"with a filter and a limit", `, "endpoint_id": 3, "created_before": "2026-11-01T13:00:00Z", "limit": 2`, "dlv_12 dlv_11"},
		{"as an operator", fmt.Sprintf(`, "operator_id": %d, "created_from": "2026-11-01T11:00:00Z", "created_before": "2026-11-01T12:00:00Z"`, viewer), "dlv_11"},
		{"nothing in range", `, "created_from": "2026-12-01T00:00:00Z"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, _ := w.must(list(tc.fields))["deliveries"].([]any)
			var got []string
			for _, d := range ds {
				got = append(got, fmt.Sprint(d.(map[string]any)["id"]))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("listed %v, want %s", got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, doc, field string }{
		{"not RFC 3339", list(`, "created_from": "2026-11-01"`), "created_from"},
		{"no zone", list(`, "created_before": "2026-11-01T10:00:00"`), "created_before"},
		{"of the wrong type", list(`, "created_from": 1762000000`), ""},
		{"from after before", list(`, "created_from": "2026-11-02T00:00:00Z", "created_before": "2026-11-01T00:00:00Z"`), "created_before"},
		{"an empty range", list(`, "created_from": "2026-11-01T00:00:00Z", "created_before": "2026-11-01T03:00:00+03:00"`), "created_before"},
		{"on delivery.get", fmt.Sprintf(`{"command": "delivery.get", %s, "account_id": %d, "delivery_id": "dlv_10", "created_from": "2026-11-01T00:00:00Z"}`, actor, acct), "created_from"},
	} {
		t.Run("refused "+tc.name, func(t *testing.T) {
			_, err := w.call(tc.doc)
			var ie messages.InvokeResponse_Error
			if failure(err) != "InvalidRequest" || (tc.field != "" && (!errors.As(err, &ie) || !strings.HasPrefix(ie.Message, tc.field+" "))) {
				t.Errorf("%v, want InvalidRequest naming %s", err, tc.field)
			}
		})
	}
}
