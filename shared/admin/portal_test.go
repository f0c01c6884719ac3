package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/portal"
)

// portal.link mints a link the settings area redeems; its token is in the
// answer alone: not in the logs, not in the tables, not in the audit trail.
func TestPortalLink(t *testing.T) {
	w := newWorld(t)
	// Links live 15 minutes and their items a day more: the wall clock,
	// since DynamoDB Local removes items whose TTL passed.
	now := time.Now().UTC().Truncate(time.Millisecond)
	w.h.Clock = domain.FixedClock(now)
	w.h.SettingsURL = "http://127.0.0.1:3000/"
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Portal", "countries": ["SA"]}`), "account")["id"])
	op := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Sara", "permissions": ["account.settings.manage"]}`, actor, acct)), "operator")["id"])
	gone := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Gone", "permissions": []}`, actor, acct)), "operator")["id"])
	w.must(fmt.Sprintf(`{"command": "operator.disable", %s, "account_id": %d, "operator_id": %d}`, actor, acct, gone))

	var logs bytes.Buffer
	ctx := logging.WithLogger(lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-link"}),
		logging.New(&logs, "debug"))
	out, err := w.h.Handle(ctx, json.RawMessage(fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d, "operator_id": %d}`, actor, acct, op)))
	if err != nil {
		t.Fatal(err)
	}
	var answer admin.PortalLinkView
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&answer); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	u, err := url.Parse(answer.URL)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	if u.Scheme != "http" || u.Host != "127.0.0.1:3000" || u.Path != "/console/enrol" || !strings.HasPrefix(token, portal.LinkPrefix) ||
		answer.ExpiresAt != domain.FormatTime(now.Add(portal.LinkTTL)) {
		t.Errorf("answer = %+v", answer)
	}
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), `"command":"portal.link"`) {
		t.Errorf("logs: %s", logs.String())
	}
	rec, err := w.st.AuditRecord(ctx, acct, "adm-req-link")
	if err != nil || rec.Action != domain.ActionPortalLink || rec.Actor != "ops@example.com" || rec.After["operator_id"] != float64(op) {
		t.Errorf("audit = %+v (%v)", rec, err)
	}
	if b, _ := json.Marshal(rec); strings.Contains(string(b), token) {
		t.Errorf("the audit record holds the token: %s", b)
	}

	// The settings area redeems it, once.
	p := &portal.Service{Store: w.st, Clock: domain.FixedClock(now.Add(time.Minute))}
	if _, s, err := p.Redeem(context.Background(), token); err != nil || s.Operator.ID != op || s.AccountID != acct {
		t.Errorf("redeem: %+v, %v", s, err)
	}
	if _, _, err := p.Redeem(context.Background(), token); err != portal.ErrLinkUsed {
		t.Errorf("redeem again: %v, want ErrLinkUsed", err)
	}

	before := w.items()
	tests := []struct {
		name, doc, failure, says string
	}{
		{"no operator", fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d}`, actor, acct), "InvalidRequest", "operator_id"},
		{"an unknown operator", fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d, "operator_id": 987654}`, actor, acct), "NotFound", "has no operator 987654"},
		{"a disabled operator", fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d, "operator_id": %d}`, actor, acct, gone), "InvalidRequest", "is disabled"},
		{"an unknown account", fmt.Sprintf(`{"command": "portal.link", %s, "account_id": 987654, "operator_id": %d}`, actor, op), "NotFound", "Account 987654"},
		{"an unknown field", fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d, "operator_id": %d, "ttl": "1h"}`, actor, acct, op), "InvalidRequest", "ttl"},
		{"a used action id", fmt.Sprintf(`{"command": "portal.link", %s, "action_id": "adm-req-link", "account_id": %d, "operator_id": %d}`, actor, acct, op), "Conflict", "adm-req-link"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.call(tc.doc)
			if failure(err) != tc.failure || !strings.Contains(fmt.Sprint(err), tc.says) {
				t.Errorf("%v, want %s saying %q", err, tc.failure, tc.says)
			}
		})
	}

	// A stage without the settings area's address mints nothing.
	w.h.SettingsURL = ""
	if _, err := w.call(fmt.Sprintf(`{"command": "portal.link", %s, "account_id": %d, "operator_id": %d}`, actor, acct, op)); err == nil || failure(err) != "" {
		t.Errorf("without SETTINGS_BASE_URL: %v, want a fault", err)
	}
	if after := w.items(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused commands wrote: %v, then %v", before, after)
	}
}
