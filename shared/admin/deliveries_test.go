package admin_test

import (
	"fmt"
	"strings"
	"testing"
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
