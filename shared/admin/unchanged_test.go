package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// tables is every item of the tables an update writes (accounts, endpoints,
// audit), as stored: equal before and after means nothing was written.
func (w *world) tables() string {
	w.t.Helper()
	var out []string
	for _, id := range []string{schema.Accounts, schema.WebhookEndpoints, schema.Audit} {
		var items []map[string]any
		if err := w.db.Table(w.names[id]).Scan().Consistent(true).All(context.Background(), &items); err != nil {
			w.t.Fatal(err)
		}
		for _, it := range items {
			b, err := json.Marshal(it) // map keys sorted
			if err != nil {
				w.t.Fatal(err)
			}
			out = append(out, id+" "+string(b))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// auditCount is how many audit records the account has.
func (w *world) auditCount(accountID int64) int {
	w.t.Helper()
	recs, err := w.st.AccountAudit(context.Background(), accountID, 10000)
	if err != nil {
		w.t.Fatal(err)
	}
	return len(recs)
}

// TestUpdatesThatChangeNothingWriteNothing: every update command given the
// values the record has writes nothing (no item changes, no audit record)
// and answers the record as it is with "changed": false; a real change
// answers "changed": true. The same with a used action id is still refused
// (Conflict), as the change would be.
func TestUpdatesThatChangeNothingWriteNothing(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA", {"code": "AE", "registration_pattern": "^CN-[0-9]{4}$", "registration_message": "must be CN- and 4 digits"}, {"code": "BH", "active": false}], "review_interval_days": 365, "four_eyes": ["reject", "approve_high_risk"], "extended_retention_years": 7}`), "account")["id"])
	op := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Dana", "permissions": ["webhook_endpoint.manage", "entity.review.decide"]}`, actor, acct)), "operator")["id"])
	ep := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/evs", "events": ["approved", "entity_review.rejected"], "description": "ERP"}`, actor, acct)), "endpoint")["id"])
	inactive := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://off.example.com/evs", "events": ["approved"]}`, actor, acct)), "endpoint")["id"])
	w.must(fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "active": false}`, actor, acct, inactive))
	used := "adm-req-" + fmt.Sprint(w.seq) // the action id of the last change

	get := func(doc, name string) map[string]any { return obj(w.must(doc), name) }
	accountGet := fmt.Sprintf(`{"command": "account.get", %s, "account_id": %d}`, actor, acct)
	endpointGet := func(id int64) string {
		return fmt.Sprintf(`{"command": "endpoint.get", %s, "account_id": %d, "endpoint_id": %d}`, actor, acct, id)
	}
	operatorGet := func() map[string]any {
		ops, _ := w.must(fmt.Sprintf(`{"command": "operator.list", %s, "account_id": %d}`, actor, acct))["operators"].([]any)
		for _, o := range ops {
			if num(o.(map[string]any)["id"]) == op {
				return o.(map[string]any)
			}
		}
		t.Fatalf("no operator %d in %v", op, ops)
		return nil
	}

	cases := []struct {
		name    string
		doc     string
		answer  string                // the record's name in the answer
		current func() map[string]any // the record as a read answers it
	}{
		{"account.update with every field as it is",
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "name": "Acme", "review_interval_days": 365, "four_eyes": ["approve_high_risk", "reject", "reject"], "extended_retention_years": 7, "countries": ["SA", {"code": "AE", "registration_pattern": "^CN-[0-9]{4}$", "registration_message": "must be CN- and 4 digits"}, {"code": "BH", "active": false}]}`, actor, acct),
			"account", func() map[string]any { return get(accountGet, "account") }},
		{"account.update with its extended retention",
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 7}`, actor, acct),
			"account", func() map[string]any { return get(accountGet, "account") }},
		{"account.update enabling an enabled country",
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": [{"code": "SA", "active": true}]}`, actor, acct),
			"account", func() map[string]any { return get(accountGet, "account") }},
		{"account.update disabling a disabled country",
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": [{"code": "BH", "active": false}]}`, actor, acct),
			"account", func() map[string]any { return get(accountGet, "account") }},
		{"operator.update with its name and permissions",
			fmt.Sprintf(`{"command": "operator.update", %s, "account_id": %d, "operator_id": %d, "name": "Dana", "permissions": ["entity.review.decide", "webhook_endpoint.manage"]}`, actor, acct, op),
			"operator", operatorGet},
		{"operator.update with its name alone",
			fmt.Sprintf(`{"command": "operator.update", %s, "account_id": %d, "operator_id": %d, "name": "Dana"}`, actor, acct, op),
			"operator", operatorGet},
		{"endpoint.update with every field as it is",
			fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "url": "https://hooks.example.com/evs", "events": ["entity_review.rejected", "approved"], "active": true, "description": "ERP"}`, actor, acct, ep),
			"endpoint", func() map[string]any { return get(endpointGet(ep), "endpoint") }},
		{"endpoint.update by an operator who may",
			fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "operator_id": %d, "description": "ERP"}`, actor, acct, ep, op),
			"endpoint", func() map[string]any { return get(endpointGet(ep), "endpoint") }},
		{"endpoint.update deactivating an inactive endpoint",
			fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "active": false}`, actor, acct, inactive),
			"endpoint", func() map[string]any { return get(endpointGet(inactive), "endpoint") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.current()
			items, audits := w.tables(), w.auditCount(acct)
			got := w.must(c.doc)
			if got["changed"] != false {
				t.Errorf("answer says changed %v, want false: %v", got["changed"], got)
			}
			if mustJSON(t, got[c.answer]) != mustJSON(t, want) {
				t.Errorf("answered %s\n    want %s", mustJSON(t, got[c.answer]), mustJSON(t, want))
			}
			if n := w.auditCount(acct); n != audits {
				t.Errorf("audit records: %d before, %d after", audits, n)
			}
			if after := w.tables(); after != items {
				t.Errorf("items changed:\nbefore %s\nafter  %s", items, after)
			}
			// Its own action id named nothing (nothing was written): again,
			// the same answer.
			var doc map[string]any
			_ = json.Unmarshal([]byte(c.doc), &doc)
			doc["action_id"] = "adm-req-" + fmt.Sprint(w.seq)
			if again, err := w.call(mustJSON(t, doc)); err != nil || again["changed"] != false {
				t.Errorf("repeated with its own action id: %v %v, want changed false", again, err)
			}
			// An action id that named an earlier change: refused as used,
			// as the change would be, still writing nothing.
			doc["action_id"] = used
			if _, err := w.call(mustJSON(t, doc)); failure(err) != "Conflict" {
				t.Errorf("with a used action id: %v, want Conflict", err)
			}
			if after := w.tables(); after != items {
				t.Error("the repeats wrote")
			}
		})
	}

	// A real change says so, and a repeat of it with its action id (a
	// retried invocation, which now finds nothing to change) is the same
	// Conflict as before.
	t.Run("changes", func(t *testing.T) {
		for _, doc := range []string{
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "name": "Acme Pay"}`, actor, acct),
			fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 10}`, actor, acct),
			fmt.Sprintf(`{"command": "operator.update", %s, "account_id": %d, "operator_id": %d, "permissions": ["webhook_endpoint.manage"]}`, actor, acct, op),
			fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "active": true}`, actor, acct, inactive),
		} {
			audits := w.auditCount(acct)
			if got := w.must(doc); got["changed"] != true {
				t.Errorf("%s answered %v, want changed true", doc, got)
			}
			if n := w.auditCount(acct); n != audits+1 {
				t.Errorf("%s: %d audit records after, want %d", doc, n, audits+1)
			}
			var m map[string]any
			_ = json.Unmarshal([]byte(doc), &m)
			m["action_id"] = "adm-req-" + fmt.Sprint(w.seq)
			before := w.tables()
			if _, err := w.call(mustJSON(t, m)); failure(err) != "Conflict" {
				t.Errorf("%s repeated: %v, want Conflict", doc, err)
			}
			if w.tables() != before {
				t.Errorf("%s repeated: wrote", doc)
			}
		}
	})

	// Only the countries that change are written: one listed as it is
	// keeps its item (and its updated_at); the audit record names only
	// the one that changed.
	t.Run("countries as they are stay unwritten", func(t *testing.T) {
		sa, err := w.st.CountryConfig(context.Background(), acct, "SA")
		if err != nil {
			t.Fatal(err)
		}
		w.h.Clock = domain.FixedClock(t0.Add(time.Hour))
		defer func() { w.h.Clock = domain.FixedClock(t0) }()
		got := w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": ["SA", "BH"]}`, actor, acct))
		if got["changed"] != true {
			t.Fatalf("answered %v", got)
		}
		if now, _ := w.st.CountryConfig(context.Background(), acct, "SA"); !now.UpdatedAt.Equal(sa.UpdatedAt) {
			t.Errorf("SA, unchanged, was written: updated_at %v, was %v", now.UpdatedAt, sa.UpdatedAt)
		}
		if bh, _ := w.st.CountryConfig(context.Background(), acct, "BH"); !bh.Active || !bh.UpdatedAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("BH %+v", bh)
		}
		recs, _ := w.st.AccountAudit(context.Background(), acct, 1)
		after, _ := recs[0].After["countries"].([]any)
		if len(after) != 1 || after[0].(map[string]any)["code"] != "BH" {
			t.Errorf("audit after %v: want BH alone", recs[0].After)
		}
	})

	// operator.disable of a disabled operator stays refused (Conflict), as
	// it always was, and writes nothing; the first disable says changed.
	t.Run("operator.disable twice", func(t *testing.T) {
		disable := fmt.Sprintf(`{"command": "operator.disable", %s, "account_id": %d, "operator_id": %d}`, actor, acct, op)
		if got := w.must(disable); got["changed"] != true {
			t.Errorf("disable answered %v", got)
		}
		before, audits := w.tables(), w.auditCount(acct)
		_, err := w.call(disable)
		var ie messages.InvokeResponse_Error
		if !errors.As(err, &ie) || ie.Type != "Conflict" || !strings.Contains(ie.Message, "disabled already") {
			t.Errorf("disable again: %v, want Conflict", err)
		}
		if w.tables() != before || w.auditCount(acct) != audits {
			t.Error("disable again wrote")
		}
	})
}

// beforeRead is the store with another change landing right after the
// account.update being run read the account's countries.
type beforeRead struct {
	*store.Store
	race func()
}

func (b *beforeRead) CountryConfigs(ctx context.Context, accountID int64) ([]domain.CountryConfig, error) {
	out, err := b.Store.CountryConfigs(ctx, accountID)
	if b.race != nil {
		race := b.race
		b.race = nil
		race()
	}
	return out, err
}

// TestConcurrentAccountUpdateIsConflict: an account.update whose account
// changed between its read and its write is refused as Conflict and
// writes nothing; the change that landed stays.
func TestConcurrentAccountUpdateIsConflict(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme", "countries": ["SA"]}`), "account")["id"])
	racing := &beforeRead{Store: w.st}
	h := &admin.Handler{Store: racing, Queue: w, Allow: w.h.Allow, Clock: w.h.Clock}
	var before string
	racing.race = func() {
		w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": [{"code": "SA", "active": false}, "AE"]}`, actor, acct))
		before = w.tables()
	}
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-late"})
	_, err := h.Handle(ctx, json.RawMessage(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": ["BH"]}`, actor, acct)))
	var ie messages.InvokeResponse_Error
	if !errors.As(err, &ie) || ie.Type != "Conflict" || ie.Message != fmt.Sprintf("Account %d changed since it was read; read it again and retry.", acct) {
		t.Fatalf("the later update: %v, want the Conflict", err)
	}
	if w.tables() != before {
		t.Error("the refused update wrote")
	}
	cs, _ := w.st.CountryConfigs(context.Background(), acct)
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s:%t", c.CountryCode, c.Active))
	}
	if strings.Join(got, " ") != "AE:true SA:false" {
		t.Errorf("countries %v: want the first update's", got)
	}
	// Read again, it applies.
	if got := w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": ["BH"]}`, actor, acct)); got["changed"] != true {
		t.Errorf("the retry answered %v", got)
	}
}
