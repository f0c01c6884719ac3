package settings_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

// TestDeliveryList: newest first, each filter, refusals beside their field.
func TestDeliveryList(t *testing.T) {
	w := newWorld(t)
	ep1 := w.endpoint(t, "https://one.example.com/evs", "")
	ep2 := w.endpoint(t, "https://two.example.com/evs", "")
	failed := w.deliver(t, ep1.ID, 500, "down", "receiver answered 500")
	ok2 := w.deliver(t, ep2.ID, 200, "ok", "")
	ok1 := w.deliver(t, ep1.ID, 204, "", "")
	// Two days before the others: the dates reach it through DynamoDB's
	// range on each index, not by reading the newest attempts.
	old := w.deliverAt(t, ep2.ID, 200, "ok", "", time.Date(2026, 10, 30, 23, 59, 59, 0, time.UTC))
	all := []domain.Delivery{ok1, ok2, failed, old} // newest first
	today := []domain.Delivery{ok1, ok2, failed}

	tests := []struct {
		query string
		want  []domain.Delivery
	}{
		{"", all},
		{fmt.Sprintf("endpoint=%d", ep1.ID), []domain.Delivery{ok1, failed}},
		{fmt.Sprintf("endpoint=%d", ep2.ID), []domain.Delivery{ok2, old}},
		{"status=failed", []domain.Delivery{failed}},
		{"status=delivered", []domain.Delivery{ok1, ok2, old}},
		{fmt.Sprintf("endpoint=%d&status=delivered", ep1.ID), []domain.Delivery{ok1}},
		{"event=entity_review.approved", all},
		{"event=entity_review.rejected", nil},
		{"from=2026-11-01&to=2026-11-01", today},
		{"from=2026-11-01", today},
		{"to=2026-11-01", all},
		{"from=2026-11-02", nil},
		{"to=2026-10-31", []domain.Delivery{old}},
		{"from=2026-10-30&to=2026-10-30", []domain.Delivery{old}},
		{"from=2026-10-31&to=2026-10-31", nil},
		{"status=failed&from=2026-11-01&to=2026-11-01", []domain.Delivery{failed}},
		{"status=delivered&from=2026-10-31", []domain.Delivery{ok1, ok2}},
		{fmt.Sprintf("endpoint=%d&to=2026-10-31", ep2.ID), []domain.Delivery{old}},
		{fmt.Sprintf("endpoint=%d&from=2026-10-31", ep2.ID), []domain.Delivery{ok2}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			a := w.get(roleViewer, "/settings/deliveries?"+tc.query)
			if a.StatusCode != http.StatusOK {
				t.Fatalf("status %d:\n%s", a.StatusCode, a.body)
			}
			at := -1
			for _, d := range tc.want {
				i := strings.Index(a.body, `href="/settings/deliveries/`+d.ID+`"`)
				if i < at {
					t.Errorf("%s out of order", d.ID)
				}
				at = i
			}
			for _, d := range all {
				if strings.Contains(a.body, d.ID) != containsDelivery(tc.want, d) {
					t.Errorf("%s listed: %t", d.ID, strings.Contains(a.body, d.ID))
				}
			}
			if len(tc.want) == 0 && !strings.Contains(a.body, "No deliveries match") {
				t.Error("no word of an empty list")
			}
		})
	}

	refused := []struct{ query, field, says string }{
		{"endpoint=abc", "endpoint", "one of your endpoints"},
		{"endpoint=-3", "endpoint", "one of your endpoints"},
		{"status=nope", "status", "must be one of"},
		{"event=entity_review.nope", "event", "must be one of"},
		{"from=2026-13-01", "from", "a date such as"},
		{"to=yesterday", "to", "a date such as"},
		{"from=2026-11-02&to=2026-11-01", "to", "not be before"},
	}
	for _, tc := range refused {
		t.Run("refused "+tc.query, func(t *testing.T) {
			a := w.get(roleViewer, "/settings/deliveries?"+tc.query)
			if a.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d", a.StatusCode)
			}
			if block := fieldBlock(a.body, tc.field); !strings.Contains(block, `class="error"`) || !strings.Contains(block, tc.says) {
				t.Errorf("no %q beside %s:\n%s", tc.says, tc.field, block)
			}
			if strings.Contains(a.body, failed.ID) {
				t.Error("a refused filter listed deliveries")
			}
		})
	}

	t.Run("the filter is kept", func(t *testing.T) {
		a := w.get(roleViewer, fmt.Sprintf("/settings/deliveries?endpoint=%d&status=failed&event=entity_review.approved&from=2026-11-01", ep1.ID))
		for _, want := range []string{fmt.Sprintf(`<option value="%d" selected>`, ep1.ID), `<option value="failed" selected>`,
			`<option value="entity_review.approved" selected>`, `name="from" type="date" value="2026-11-01"`} {
			if !strings.Contains(a.body, want) {
				t.Errorf("no %s", want)
			}
		}
	})
}

func containsDelivery(list []domain.Delivery, d domain.Delivery) bool {
	for _, x := range list {
		if x.ID == d.ID {
			return true
		}
	}
	return false
}

// TestDeliveryPage: what was sent and what came back.
func TestDeliveryPage(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "")
	d := w.deliver(t, ep.ID, 503, "try later", "receiver answered 503 Service Unavailable")
	a := w.get(roleViewer, "/settings/deliveries/"+d.ID)
	if a.StatusCode != http.StatusOK {
		t.Fatalf("status %d", a.StatusCode)
	}
	for _, want := range []string{
		"{\n  &#34;event_type&#34;: &#34;entity_review.approved&#34;,", // the body, indented
		"<code>Content-Type</code>", "<code>" + delivery.HeaderDeliveryID + "</code>", "<code>" + d.ID + "</code>",
		"<code>" + delivery.HeaderEventID + "</code>", "<code>" + d.EventID + "</code>", "<code>" + delivery.HeaderTimestamp + "</code>",
		"<code>" + delivery.UserAgent + "</code>", "HTTP 503", "try later", "120 ms", "receiver answered 503 Service Unavailable",
		"POST https://hooks.example.com/evs", "<strong>this attempt</strong>",
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("no %q", want)
		}
	}
	if secretPattern.MatchString(a.body) {
		t.Error("a secret on the page")
	}
	other, err := w.st.CreateAccount(t.Context(), "Other", t0)
	if err != nil {
		t.Fatal(err)
	}
	theirs := w.deliver(t, ep.ID, 500, "", "x")
	if _, _, err := w.st.ClaimDelivery(t.Context(), domain.Delivery{AccountID: other.ID, ID: "dlv_theirs", Attempt: 1, EndpointID: 9, EventID: "evt_theirs",
		Event: theirs.Event, Payload: theirs.Payload, CreatedAt: t0}, t0, 0); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"dlv_nothing", "dlv_theirs", "not-a-delivery", "dlv_" + strings.Repeat("a", 200), "dlv_x.2.3", "dlv_%3Cscript%3E"} {
		if a := w.get(roleViewer, "/settings/deliveries/"+id); a.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", id, a.StatusCode)
		}
	}
}

// TestRedeliver: a reason is required; the new attempt is linked to the
// original, queued on SQS and audited naming the operator; the same form
// twice is one attempt; a lost queue message is queued by sending it again.
func TestRedeliver(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ep := w.endpoint(t, "https://hooks.example.com/evs", "")
	d := w.deliver(t, ep.ID, 500, "down", "receiver answered 500")
	path := "/settings/deliveries/" + d.ID + "/redeliver"

	for _, tc := range []struct{ name, reason, says string }{
		{"no reason", "", "is required"},
		{"a blank reason", "   ", "is required"},
		{"a long reason", strings.Repeat("r", freetext.Reason.Max+1), fmt.Sprintf("longer than %d", freetext.Reason.Max)},
		{"a control character", "tab\there", "control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.state(t)
			a := w.post(roleAll, path, url.Values{"reason": {tc.reason}})
			if a.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status %d", a.StatusCode)
			}
			if block := fieldBlock(a.body, "reason"); !strings.Contains(block, tc.says) {
				t.Errorf("no %q beside the reason:\n%s", tc.says, block)
			}
			if after := w.state(t); after != before {
				t.Error("changed")
			}
		})
	}
	if msgs := w.messages(t); len(msgs) != 0 {
		t.Fatalf("queued %+v", msgs)
	}

	form := url.Values{"reason": {"receiver fixed their database"}, "action_id": {w.actionID()}}
	a := w.post(roleAll, path, form)
	next := d.ID + ".2"
	if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != "/settings/deliveries/"+next {
		t.Fatalf("status %d, Location %q:\n%s", a.StatusCode, a.Header.Get("Location"), a.body)
	}
	att, err := w.st.Delivery(ctx, w.account.ID, next)
	if err != nil || att.OriginalID != d.ID || att.Attempt != 2 || att.Status != domain.DeliveryQueued || att.Reason != "receiver fixed their database" ||
		att.RequestedBy == nil || *att.RequestedBy != w.ops[roleAll].ID {
		t.Errorf("attempt %+v %v", att, err)
	}
	if msgs := w.messages(t); len(msgs) != 1 || msgs[0].DeliveryID != next || msgs[0].Attempt != 2 {
		t.Errorf("queued %+v", msgs)
	}
	rec, err := w.st.AuditRecord(ctx, w.account.ID, form.Get("action_id"))
	if err != nil || rec.Action != domain.ActionRedeliver || rec.OperatorID != w.ops[roleAll].ID || rec.OperatorName != w.ops[roleAll].Name || rec.Reason != "receiver fixed their database" {
		t.Errorf("audit %+v %v", rec, err)
	}

	// The attempts link each other; neither offers a redelivery while one is queued.
	for _, id := range []string{d.ID, next} {
		page := w.get(roleAll, "/settings/deliveries/"+id)
		other := map[string]string{d.ID: next, next: d.ID}[id]
		if !strings.Contains(page.body, `href="/settings/deliveries/`+other+`"`) {
			t.Errorf("%s does not link %s", id, other)
		}
		if f := changeForms(page.body); len(f) != 0 {
			t.Errorf("%s offers %v while an attempt is queued", id, f)
		}
	}
	if page := w.get(roleAll, "/settings/deliveries/"+next); !strings.Contains(page.body, "receiver fixed their database") || !strings.Contains(page.body, "Not sent yet") {
		t.Error("the queued attempt's page does not say why and that it is not sent")
	}

	// The same form again: the same attempt, queued again (it still is).
	if again := w.post(roleAll, path, form); again.StatusCode != http.StatusSeeOther || again.Header.Get("Location") != "/settings/deliveries/"+next {
		t.Errorf("repeat: %d %q", again.StatusCode, again.Header.Get("Location"))
	}
	if _, err := w.st.Delivery(ctx, w.account.ID, d.ID+".3"); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("a third attempt: %v", err)
	}
	w.messages(t)
	// Another redelivery while one is queued: refused.
	before := w.state(t)
	if other := w.post(roleAll, path, url.Values{"reason": {"again"}}); other.StatusCode != http.StatusConflict || !strings.Contains(other.body, "queued already") {
		t.Errorf("while queued: %d\n%s", other.StatusCode, other.body)
	}
	if after := w.state(t); after != before {
		t.Error("changed")
	}

	t.Run("a delivered delivery", func(t *testing.T) {
		ok := w.deliver(t, ep.ID, 200, "ok", "")
		page := w.get(roleAll, "/settings/deliveries/"+ok.ID)
		if f := changeForms(page.body); len(f) != 0 {
			t.Errorf("offers %v", f)
		}
		if a := w.post(roleAll, "/settings/deliveries/"+ok.ID+"/redeliver", url.Values{"reason": {"why not"}}); a.StatusCode != http.StatusConflict {
			t.Errorf("status %d", a.StatusCode)
		}
	})

	t.Run("the queue fails", func(t *testing.T) {
		lost := w.deliver(t, ep.ID, 500, "down", "receiver answered 500")
		deps := w.deps
		broken := *deps.Deliveries
		broken.Queue = &delivery.SQSQueue{Client: w.sqs, URL: w.queueURL + "-missing"}
		deps.Deliveries = &broken
		form := url.Values{"reason": {"retry"}, "action_id": {w.actionID()}}
		a := w.doWith(newServer(w.portal, deps, w.log), w.formRequest(roleAll, "/settings/deliveries/"+lost.ID+"/redeliver", form))
		if a.StatusCode != http.StatusServiceUnavailable || !strings.Contains(a.body, "could not be queued") ||
			!strings.Contains(a.body, `name="action_id" value="`+form.Get("action_id")+`"`) || !strings.Contains(a.body, `value="retry"`) {
			t.Fatalf("status %d:\n%s", a.StatusCode, a.body)
		}
		if att, err := w.st.Delivery(ctx, w.account.ID, lost.ID+".2"); err != nil || att.Status != domain.DeliveryQueued {
			t.Fatalf("recorded %+v %v", att, err)
		}
		// The form as shown, sent again once the queue is back.
		if a := w.post(roleAll, "/settings/deliveries/"+lost.ID+"/redeliver", form); a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != "/settings/deliveries/"+lost.ID+".2" {
			t.Errorf("again: %d %q", a.StatusCode, a.Header.Get("Location"))
		}
		if msgs := w.messages(t); len(msgs) != 1 || msgs[0].DeliveryID != lost.ID+".2" {
			t.Errorf("queued %+v", msgs)
		}
	})
}

// TestTestEvent: the test event goes through the Tester as the operator,
// with the form's action id and the request's id, then shows its delivery.
func TestTestEvent(t *testing.T) {
	w := newWorld(t)
	ep := w.endpoint(t, "https://hooks.example.com/evs", "")
	path := fmt.Sprintf("/settings/endpoints/%d/test", ep.ID)

	form := url.Values{"action_id": {w.actionID()}}
	r := w.formRequest(roleAll, path, form)
	r = withRequestID(r, "req-test-1")
	a := w.do(r)
	if a.StatusCode != http.StatusSeeOther || !strings.HasPrefix(a.Header.Get("Location"), "/settings/deliveries/dlv_") {
		t.Fatalf("status %d, Location %q", a.StatusCode, a.Header.Get("Location"))
	}
	got := w.tester.last()
	want := domain.Actor{AccountID: w.account.ID, OperatorID: w.ops[roleAll].ID, ActionID: form.Get("action_id"), RequestID: "req-test-1"}
	if got.Actor != want || got.EndpointID != ep.ID {
		t.Errorf("tester got %+v, want %+v", got, want)
	}
	if page := w.get(roleAll, a.Header.Get("Location")); page.StatusCode != http.StatusOK {
		t.Errorf("the delivery's page: %d", page.StatusCode)
	}

	// Who may not see deliveries is shown the endpoint.
	a = w.post(roleManager, path, nil)
	next := fmt.Sprintf("/settings/endpoints/%d?done=test", ep.ID)
	if a.StatusCode != http.StatusSeeOther || a.Header.Get("Location") != next {
		t.Fatalf("status %d, Location %q", a.StatusCode, a.Header.Get("Location"))
	}
	if page := w.get(roleManager, next); !strings.Contains(page.body, "A test event was sent") {
		t.Error("the endpoint page does not say the test was sent")
	}

	for _, tc := range []struct {
		name   string
		err    error
		status int
		hides  string
	}{
		{"forbidden", domain.Errorf(domain.ECodeForbidden, "Operator lacks it."), http.StatusForbidden, ""},
		{"gone", domain.Errorf(domain.ECodeNotFound, "Webhook endpoint not found."), http.StatusNotFound, ""},
		{"a fault", fmt.Errorf("dial tcp 10.0.0.7:443: secret-ish detail"), http.StatusInternalServerError, "10.0.0.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send := w.tester.send
			w.tester.send = func(domain.Actor, int64) (domain.Delivery, error) { return domain.Delivery{}, tc.err }
			defer func() { w.tester.send = send }()
			a := w.do(withRequestID(w.formRequest(roleAll, path, nil), "req-fault-1"))
			if a.StatusCode != tc.status {
				t.Errorf("status %d", a.StatusCode)
			}
			if tc.hides != "" && strings.Contains(a.body, tc.hides) {
				t.Error("the fault's detail is on the page")
			}
			if tc.status == http.StatusInternalServerError && !strings.Contains(a.body, "req-fault-1") {
				t.Error("no reference on the error page")
			}
		})
	}
}
