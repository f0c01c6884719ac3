package admin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// endpoint.test sends one endpoint a ping, whatever it subscribes to,
// recorded as a delivery the deliveries view lists; an operator needs
// webhook_endpoint.manage.
func TestEndpointTest(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Pings", "countries": ["SA"]}`), "account")["id"])
	manager := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "M", "permissions": ["webhook_endpoint.manage"]}`, actor, acct)), "operator")["id"])
	viewer := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "V", "permissions": ["webhook_delivery.view"]}`, actor, acct)), "operator")["id"])
	ep := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/evs", "events": ["assigned"]}`, actor, acct)), "endpoint")["id"])
	off := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/off", "events": ["assigned"]}`, actor, acct)), "endpoint")["id"])
	w.must(fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "active": false}`, actor, acct, off))

	for i, by := range []string{"", fmt.Sprintf(`, "operator_id": %d`, manager)} {
		d := obj(w.must(fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": %d%s}`, actor, acct, ep, by)), "delivery")
		if d["event_type"] != "ping" || d["status"] != "queued" || num(d["endpoint_id"]) != ep || num(d["attempt"]) != 1 || !strings.HasPrefix(fmt.Sprint(d["id"]), "dlv_") {
			t.Errorf("test %d: delivery = %v", i, d)
		}
		if len(w.sent) != i+1 || w.sent[i].DeliveryID != d["id"] || !w.sent[i].Recorded {
			t.Errorf("test %d: queued %+v", i, w.sent)
		}
	}
	list := w.must(fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d, "event_type": "ping"}`, actor, acct))["deliveries"].([]any)
	if len(list) != 2 {
		t.Errorf("delivery.list event_type ping = %v, want both pings", list)
	}
	audit := w.must(fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d}`, actor, acct))["audit"].([]any)
	if a := audit[0].(map[string]any); a["action"] != string(domain.ActionEndpointTest) || num(a["operator_id"]) != manager {
		t.Errorf("latest audit record = %v, want the manager's test", a)
	}

	before := w.items()
	for _, tc := range []struct{ name, doc, failure, says string }{
		{"an operator without webhook_endpoint.manage", fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": %d, "operator_id": %d}`, actor, acct, ep, viewer), "Forbidden", "webhook_endpoint.manage"},
		{"a deactivated endpoint", fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": %d}`, actor, acct, off), "Conflict", "deactivated"},
		{"an unknown endpoint", fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": 987654}`, actor, acct), "NotFound", "has no webhook endpoint 987654"},
		{"no endpoint", fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d}`, actor, acct), "InvalidRequest", "endpoint_id"},
		{"a field it does not take", fmt.Sprintf(`{"command": "endpoint.test", %s, "account_id": %d, "endpoint_id": %d, "url": "https://x.example.com"}`, actor, acct, ep), "InvalidRequest", "url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.call(tc.doc)
			if failure(err) != tc.failure || !strings.Contains(fmt.Sprint(err), tc.says) {
				t.Errorf("%v, want %s saying %q", err, tc.failure, tc.says)
			}
		})
	}
	if after := w.items(); fmt.Sprint(after) != fmt.Sprint(before) || len(w.sent) != 2 {
		t.Errorf("refused tests wrote: %v, then %v; queued %d", before, after, len(w.sent))
	}
}
