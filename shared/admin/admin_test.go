package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// world is the admin handler over fresh tables.
type world struct {
	t     *testing.T
	h     *admin.Handler
	st    *store.Store
	db    *dynamo.DB
	names schema.Names
	sent  []delivery.Message
	seq   int
}

func (w *world) Send(_ context.Context, msgs []delivery.Message) error {
	w.sent = append(w.sent, msgs...)
	return nil
}

var t0 = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func newWorld(t *testing.T) *world {
	if testing.Short() {
		t.Skip("needs DynamoDB Local")
	}
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	w := &world{t: t, st: store.New(db, names), db: db, names: names}
	allow, err := webhooks.ParseAllowList("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	w.h = &admin.Handler{Store: w.st, Queue: w, Allow: allow, Clock: domain.FixedClock(t0)}
	return w
}

// call runs a command document as the admin function would, with a fresh
// request id, and returns the answer or the refusal.
func (w *world) call(doc string) (map[string]any, error) {
	w.seq++
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: fmt.Sprintf("req-%d", w.seq)})
	out, err := w.h.Handle(ctx, json.RawMessage(doc))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		w.t.Fatalf("answer is not a JSON object: %s", out)
	}
	return m, nil
}

func (w *world) must(doc string) map[string]any {
	w.t.Helper()
	m, err := w.call(doc)
	if err != nil {
		w.t.Fatalf("%s: %v", doc, err)
	}
	return m
}

// items counts the items of every table.
func (w *world) items() map[string]int {
	w.t.Helper()
	out := map[string]int{}
	for id, name := range w.names {
		n, err := w.db.Table(name).Scan().Consistent(true).Count(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		out[id] = int(n)
	}
	return out
}

func failure(err error) string {
	var ie messages.InvokeResponse_Error
	if errors.As(err, &ie) {
		return ie.Type
	}
	return ""
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

func obj(m map[string]any, k string) map[string]any { o, _ := m[k].(map[string]any); return o }

func TestFirstDayCommands(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`

	acct := obj(w.must(`{"command": "account.create", `+actor+`, "name": "Acme Payments", "countries": ["SA", {"code": "AE", "registration_pattern": "^CN-[0-9]{4}$", "registration_message": "must be CN- and 4 digits"}], "review_interval_days": 365, "four_eyes": ["escalate_to_aml"], "extended_retention_years": 7}`), "account")
	id := num(acct["id"])
	if id <= 0 || acct["name"] != "Acme Payments" || num(acct["review_interval_days"]) != 365 || num(acct["extended_retention_years"]) != 7 {
		t.Fatalf("account.create answered %v", acct)
	}
	got := obj(w.must(fmt.Sprintf(`{"command": "account.get", %s, "account_id": %d}`, actor, id)), "account")
	countries, _ := got["countries"].([]any)
	if len(countries) != 2 {
		t.Fatalf("account.get countries = %v", got["countries"])
	}
	if num(got["extended_retention_years"]) != 7 {
		t.Errorf("account.get extended_retention_years = %v, want 7", got["extended_retention_years"])
	}
	ae := countries[0].(map[string]any)
	if ae["code"] != "AE" || ae["registration_pattern"] != "^CN-[0-9]{4}$" || ae["active"] != true {
		t.Errorf("AE configured as %v", ae)
	}
	cfg, err := w.st.CountryConfig(context.Background(), id, "SA")
	if err != nil || cfg.RegistrationPattern != domain.SaudiRegistrationPattern || len(cfg.IntakeChecks) != 2 {
		t.Errorf("SA stored as %+v (%v): want Saudi rule and both intake checks", cfg, err)
	}

	// Disabling a country keeps its rule; enabling another adds it.
	upd := obj(w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "countries": [{"code": "AE", "active": false}, "BH"], "four_eyes": []}`, actor, id)), "account")
	if cs, _ := upd["countries"].([]any); len(cs) != 3 {
		t.Errorf("after update countries = %v", upd["countries"])
	}
	if cfg, _ := w.st.CountryConfig(context.Background(), id, "AE"); cfg.Active || cfg.RegistrationPattern != "^CN-[0-9]{4}$" {
		t.Errorf("AE after disabling: %+v", cfg)
	}
	if a, _ := w.st.Account(context.Background(), id); len(a.Settings.FourEyes) != 0 || a.Settings.ReviewIntervalDays != 365 {
		t.Errorf("settings after update: %+v", a.Settings)
	}
	if a, _ := w.st.Account(context.Background(), id); a.Settings.DeclaredDecisions {
		t.Errorf("a new account accepts declared decisions: %+v", a.Settings)
	}

	// Declared decisions, SLA days and extended retention: set, shown,
	// and cleared.
	upd = obj(w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "declared_decisions": true, "sla_days": {"initial": 5, "periodic": 10}, "extended_retention_years": 10}`, actor, id)), "account")
	if upd["declared_decisions"] != true || fmt.Sprint(upd["sla_days"]) != "map[initial:5 periodic:10]" || num(upd["extended_retention_years"]) != 10 {
		t.Errorf("after setting declared decisions, SLA days and extended retention: %v", upd)
	}
	upd = obj(w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "declared_decisions": false, "sla_days": {}, "extended_retention_years": 0}`, actor, id)), "account")
	if upd["declared_decisions"] != false || fmt.Sprint(upd["sla_days"]) != "map[]" || upd["extended_retention_years"] != float64(0) {
		t.Errorf("after clearing declared decisions, SLA days and extended retention: %v", upd)
	}
	if a, _ := w.st.Account(context.Background(), id); a.Settings.ExtendedRetentionYears != 0 {
		t.Errorf("extended retention after clearing: %+v", a.Settings)
	}

	// The ownership threshold: the law's 25 until set lower, 25 again
	// when set to the law's.
	if num(upd["ownership_threshold_percent"]) != 25 {
		t.Errorf("ownership threshold before any setting: %v, want the law's 25", upd["ownership_threshold_percent"])
	}
	upd = obj(w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "ownership_threshold_percent": 10}`, actor, id)), "account")
	if a, _ := w.st.Account(context.Background(), id); num(upd["ownership_threshold_percent"]) != 10 || a.Settings.OwnershipThreshold() != 10 {
		t.Errorf("ownership threshold set to 10: answered %v, stored %+v", upd["ownership_threshold_percent"], a.Settings)
	}
	upd = obj(w.must(fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "ownership_threshold_percent": 25}`, actor, id)), "account")
	if a, _ := w.st.Account(context.Background(), id); num(upd["ownership_threshold_percent"]) != 25 || a.Settings.OwnershipThresholdPercent != 0 {
		t.Errorf("ownership threshold set back to the law's: answered %v, stored %+v", upd["ownership_threshold_percent"], a.Settings)
	}

	// A key: in clear once, stored as its hash, accepted by the authorizer.
	kc := w.must(fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": ["entity.view", "entity.review.view"], "description": "nightly sync"}`, actor, id))
	key, _ := kc["key"].(string)
	keyID, _ := obj(kc, "api_key")["id"].(string)
	if !auth.WellFormed(key) || keyID != auth.KeyID(auth.HashKey(key)) {
		t.Fatalf("key.create answered %v", kc)
	}
	authz := &auth.Authorizer{Keys: w.st, Clock: domain.SystemClock}
	if p, err := authz.Authenticate(context.Background(), "Bearer "+key); err != nil || p.AccountID != id {
		t.Fatalf("new key: %+v, %v", p, err)
	}
	// Rotation: the successor works, the old key until the overlap ends.
	rot := w.must(fmt.Sprintf(`{"command": "key.rotate", %s, "account_id": %d, "key_id": %q, "overlap": "1h"}`, actor, id, keyID))
	next, _ := rot["key"].(string)
	if next == "" || next == key || obj(rot, "previous")["revoked_at"] != "2026-11-23T10:00:00.000Z" {
		t.Fatalf("key.rotate answered %v", rot)
	}
	old, _ := w.st.APIKeyByHash(context.Background(), auth.HashKey(key))
	if !old.ActiveAt(t0.Add(59*time.Minute)) || old.ActiveAt(t0.Add(time.Hour)) {
		t.Errorf("old key after rotation: revoked at %v", old.RevokedAt)
	}
	nextID := auth.KeyID(auth.HashKey(next))
	w.must(fmt.Sprintf(`{"command": "key.revoke", %s, "account_id": %d, "key_id": %q}`, actor, id, nextID))
	if k, _ := w.st.APIKeyByHash(context.Background(), auth.HashKey(next)); k.ActiveAt(t0) {
		t.Errorf("revoked key still active: %+v", k)
	}

	op := obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Dana", "permissions": ["webhook_endpoint.manage", "entity.review.decide"]}`, actor, id)), "operator")
	opID := num(op["id"])
	w.must(fmt.Sprintf(`{"command": "operator.update", %s, "account_id": %d, "operator_id": %d, "permissions": ["webhook_delivery.view"]}`, actor, id, opID))
	ops, _ := w.must(fmt.Sprintf(`{"command": "operator.list", %s, "account_id": %d}`, actor, id))["operators"].([]any)
	if len(ops) != 1 || fmt.Sprint(ops[0].(map[string]any)["permissions"]) != "[webhook_delivery.view]" {
		t.Errorf("operators = %v", ops)
	}

	ec := w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://hooks.example.com/evs", "events": ["approved", "entity_review.rejected"]}`, actor, id))
	secret, _ := ec["secret"].(string)
	epID := num(obj(ec, "endpoint")["id"])
	if !strings.HasPrefix(secret, "evs_whsk_") || epID <= 0 {
		t.Fatalf("endpoint.create answered %v", ec)
	}
	get := w.must(fmt.Sprintf(`{"command": "endpoint.get", %s, "account_id": %d, "endpoint_id": %d}`, actor, id, epID))
	if strings.Contains(mustJSON(t, get), secret) {
		t.Error("endpoint.get shows the secret")
	}
	// Dana, who may see deliveries (webhook_delivery.view), may read the
	// endpoints they go to, never change them.
	for _, doc := range []string{
		fmt.Sprintf(`{"command": "endpoint.list", %s, "account_id": %d, "operator_id": %d}`, actor, id, opID),
		fmt.Sprintf(`{"command": "endpoint.get", %s, "account_id": %d, "endpoint_id": %d, "operator_id": %d}`, actor, id, epID, opID),
	} {
		if m := w.must(doc); !strings.Contains(mustJSON(t, m), "hooks.example.com") || strings.Contains(mustJSON(t, m), secret) {
			t.Errorf("%s answered %v", doc, m)
		}
	}
	if _, err := w.call(fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "operator_id": %d, "active": false}`, actor, id, epID, opID)); failure(err) != "Forbidden" {
		t.Errorf("endpoint.update by a viewer: %v, want Forbidden", err)
	}
	w.must(fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d, "active": false}`, actor, id, epID))
	rs := w.must(fmt.Sprintf(`{"command": "endpoint.rotate", %s, "account_id": %d, "endpoint_id": %d, "overlap": "2h"}`, actor, id, epID))
	if s2, _ := rs["secret"].(string); s2 == "" || s2 == secret {
		t.Errorf("endpoint.rotate answered %v", rs)
	}
	w.must(fmt.Sprintf(`{"command": "endpoint.delete", %s, "account_id": %d, "endpoint_id": %d}`, actor, id, epID))
	w.must(fmt.Sprintf(`{"command": "operator.disable", %s, "account_id": %d, "operator_id": %d}`, actor, id, opID))
	if o, _ := w.st.Operator(context.Background(), id, opID); o.Can(domain.PermWebhookDeliveryView) {
		t.Error("a disabled operator still holds a permission")
	}

	// Every change is in the account's trail with the actor and request
	// id; no key or secret in clear is.
	trail, _ := w.must(fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d}`, actor, id))["audit"].([]any)
	wantActions := []string{"account.create", "account.update", "account.update", "account.update", "account.update", "account.update", "key.create", "key.rotate", "key.revoke", "operator.create", "operator.update",
		"webhook_endpoint.create", "webhook_endpoint.update", "webhook_endpoint.rotate_secret", "webhook_endpoint.delete", "operator.disable"}
	if len(trail) != len(wantActions) {
		t.Fatalf("audit has %d records, want %d: %v", len(trail), len(wantActions), trail)
	}
	seen := map[string]bool{}
	for _, r := range trail {
		rec := r.(map[string]any)
		seen[rec["action"].(string)] = true
		if rec["actor"] != "ops@example.com" || !strings.HasPrefix(rec["request_id"].(string), "req-") || rec["action_id"] != "adm-"+rec["request_id"].(string) {
			t.Errorf("audit record %v: want actor and request id", rec)
		}
	}
	for _, a := range wantActions {
		if !seen[a] {
			t.Errorf("no audit record of %s", a)
		}
	}
	// The extended retention is in the snapshots (newest first): created
	// at 7, kept by the countries' update, set to 10, cleared.
	var retention []string
	for _, r := range trail {
		rec := r.(map[string]any)
		if after := obj(rec, "after"); after != nil && strings.HasPrefix(rec["action"].(string), "account.") {
			retention = append(retention, fmt.Sprint(obj(rec, "before")["extended_retention_years"], "→", after["extended_retention_years"]))
		}
	}
	if got := strings.Join(retention, " "); got != "0→0 0→0 10→0 7→10 7→7 <nil>→7" {
		t.Errorf("extended_retention_years in the account's audit snapshots: %s", got)
	}
	all := mustJSON(t, trail)
	for _, s := range []string{key, next, secret, auth.HashKey(key)} {
		if strings.Contains(all, s) {
			t.Errorf("the audit trail holds a key, hash or secret: %.12s…", s)
		}
	}
}

// TestRefusalsWriteNothing sends bad documents to every command family: each
// is refused with a named error, and no table changes.
func TestRefusalsWriteNothing(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Mine", "countries": ["SA"]}`), "account")["id"])
	other := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Theirs", "countries": ["SA"]}`), "account")["id"])
	theirOp := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "T", "permissions": []}`, actor, other)), "operator")["id"])
	theirKey, _ := obj(w.must(fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": ["entity.view"]}`, actor, other)), "api_key")["id"].(string)
	theirEP := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://x.example.com", "events": ["approved"]}`, actor, other)), "endpoint")["id"])
	viewer := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "V", "permissions": ["webhook_delivery.view"]}`, actor, acct)), "operator")["id"])
	used := "adm-req-" + fmt.Sprint(w.seq) // the id of the last change

	cases := []struct{ name, doc, want, field string }{
		{"not JSON", `{"command": `, "InvalidRequest", ""},
		{"not an object", `[1, 2]`, "InvalidRequest", ""},
		{"no command", `{` + actor + `}`, "InvalidRequest", ""},
		{"unknown command", `{"command": "account.delete", ` + actor + `}`, "InvalidRequest", ""},
		{"command of wrong type", `{"command": 7, ` + actor + `}`, "InvalidRequest", ""},
		{"no actor", `{"command": "account.list"}`, "InvalidRequest", ""},
		{"actor with a control character", `{"command": "account.list", "actor": "a\u0000b"}`, "InvalidRequest", ""},
		{"unknown field", fmt.Sprintf(`{"command": "key.list", %s, "account_id": %d, "acount": 1}`, actor, acct), "InvalidRequest", ""},
		{"account without name", `{"command": "account.create", ` + actor + `, "countries": ["SA"]}`, "InvalidRequest", ""},
		{"account without countries", `{"command": "account.create", ` + actor + `, "name": "X"}`, "InvalidRequest", ""},
		{"unknown country", `{"command": "account.create", ` + actor + `, "name": "X", "countries": ["SA", "ZZ"]}`, "InvalidRequest", ""},
		{"country twice", `{"command": "account.create", ` + actor + `, "name": "X", "countries": ["SA", "sa"]}`, "InvalidRequest", ""},
		{"rule that does not compile", `{"command": "account.create", ` + actor + `, "name": "X", "countries": [{"code": "AE", "registration_pattern": "^[$", "registration_message": "m"}]}`, "InvalidRequest", ""},
		{"rule without message", `{"command": "account.create", ` + actor + `, "name": "X", "countries": [{"code": "AE", "registration_pattern": "^A$"}]}`, "InvalidRequest", ""},
		{"country of wrong type", `{"command": "account.create", ` + actor + `, "name": "X", "countries": [682]}`, "InvalidRequest", ""},
		{"interval out of range", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "review_interval_days": -1}`, actor, acct), "InvalidRequest", ""},
		{"SLA purpose unknown", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "sla_days": {"urgent": 2}}`, actor, acct), "InvalidRequest", ""},
		{"SLA days out of range", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "sla_days": {"initial": 0}}`, actor, acct), "InvalidRequest", ""},
		{"declared decisions of wrong type", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "declared_decisions": "yes"}`, actor, acct), "InvalidRequest", ""},
		{"extended retention shorter than every rule", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 3}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention of 1", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 1}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention over 10", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 11}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention negative", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": -1}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention not whole", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": 7.5}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention of wrong type", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "extended_retention_years": "7"}`, actor, acct), "InvalidRequest", "extended_retention_years"},
		{"extended retention out of range at create", `{"command": "account.create", ` + actor + `, "name": "X", "countries": ["SA"], "extended_retention_years": 3}`, "InvalidRequest", "extended_retention_years"},
		{"ownership threshold above the law's", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "ownership_threshold_percent": 30}`, actor, acct), "InvalidRequest", "ownership_threshold_percent"},
		{"ownership threshold negative", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "ownership_threshold_percent": -5}`, actor, acct), "InvalidRequest", "ownership_threshold_percent"},
		{"ownership threshold not whole", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "ownership_threshold_percent": 12.5}`, actor, acct), "InvalidRequest", "ownership_threshold_percent"},
		{"ownership threshold above the law's at create", `{"command": "account.create", ` + actor + `, "name": "X", "countries": ["SA"], "ownership_threshold_percent": 50}`, "InvalidRequest", "ownership_threshold_percent"},
		{"four-eyes action unknown", fmt.Sprintf(`{"command": "account.update", %s, "account_id": %d, "four_eyes": ["approve_all"]}`, actor, acct), "InvalidRequest", ""},
		{"account id of wrong type", `{"command": "account.get", ` + actor + `, "account_id": "1"}`, "InvalidRequest", ""},
		{"account that does not exist", `{"command": "account.get", ` + actor + `, "account_id": 99999999}`, "NotFound", ""},
		{"update of no account", `{"command": "account.update", ` + actor + `, "account_id": 99999999, "name": "X"}`, "NotFound", ""},
		{"key without permissions", fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d}`, actor, acct), "InvalidRequest", ""},
		{"key with unknown permission", fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": ["entity.delete"]}`, actor, acct), "InvalidRequest", ""},
		{"key permissions of wrong type", fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": "entity.view"}`, actor, acct), "InvalidRequest", ""},
		{"key for no account", `{"command": "key.create", ` + actor + `, "account_id": 99999999, "permissions": ["entity.view"]}`, "NotFound", ""},
		{"revoke another account's key", fmt.Sprintf(`{"command": "key.revoke", %s, "account_id": %d, "key_id": %q}`, actor, acct, theirKey), "NotFound", ""},
		{"rotate with a bad overlap", fmt.Sprintf(`{"command": "key.rotate", %s, "account_id": %d, "key_id": %q, "overlap": "8d"}`, actor, other, theirKey), "InvalidRequest", ""},
		{"operator with unknown permission", fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "X", "permissions": ["root"]}`, actor, acct), "InvalidRequest", ""},
		{"update another account's operator", fmt.Sprintf(`{"command": "operator.update", %s, "account_id": %d, "operator_id": %d, "name": "X"}`, actor, acct, theirOp), "NotFound", ""},
		{"disable no operator", fmt.Sprintf(`{"command": "operator.disable", %s, "account_id": %d}`, actor, acct), "InvalidRequest", ""},
		{"endpoint to a private address", fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://10.0.0.1/hook", "events": ["approved"]}`, actor, acct), "InvalidRequest", ""},
		{"endpoint with unknown event", fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://x.example.com", "events": ["entity.created"]}`, actor, acct), "InvalidRequest", ""},
		{"endpoint by an operator without permission", fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "operator_id": %d, "url": "https://x.example.com", "events": ["approved"]}`, actor, acct, viewer), "Forbidden", ""},
		{"get another account's endpoint", fmt.Sprintf(`{"command": "endpoint.get", %s, "account_id": %d, "endpoint_id": %d}`, actor, acct, theirEP), "NotFound", ""},
		{"delete another account's endpoint", fmt.Sprintf(`{"command": "endpoint.delete", %s, "account_id": %d, "endpoint_id": %d}`, actor, acct, theirEP), "NotFound", ""},
		{"update with nothing to change", fmt.Sprintf(`{"command": "endpoint.update", %s, "account_id": %d, "endpoint_id": %d}`, actor, other, theirEP), "InvalidRequest", ""},
		{"rotate with a zero overlap", fmt.Sprintf(`{"command": "endpoint.rotate", %s, "account_id": %d, "endpoint_id": %d, "overlap": "0s"}`, actor, other, theirEP), "InvalidRequest", ""},
		{"deliveries with a bad status", fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d, "status": "lost"}`, actor, acct), "InvalidRequest", ""},
		{"deliveries with a bad limit", fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d, "limit": 5000}`, actor, acct), "InvalidRequest", ""},
		{"get no delivery", fmt.Sprintf(`{"command": "delivery.get", %s, "account_id": %d, "delivery_id": "dlv_nope"}`, actor, acct), "NotFound", ""},
		{"redeliver without reason", fmt.Sprintf(`{"command": "delivery.redeliver", %s, "account_id": %d, "delivery_id": "dlv_nope"}`, actor, acct), "InvalidRequest", ""},
		{"redeliver no delivery", fmt.Sprintf(`{"command": "delivery.redeliver", %s, "account_id": %d, "delivery_id": "dlv_nope", "reason": "r"}`, actor, acct), "NotFound", ""},
		{"audit of a negative entity", fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d, "entity_id": -1}`, actor, acct), "InvalidRequest", ""},
		{"overlap on key.create", fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": ["entity.view"], "overlap": "1h"}`, actor, acct), "InvalidRequest", "overlap"},
		{"description on key.revoke", fmt.Sprintf(`{"command": "key.revoke", %s, "account_id": %d, "key_id": "key_x", "description": "d"}`, actor, acct), "InvalidRequest", "description"},
		{"permissions on operator.disable", fmt.Sprintf(`{"command": "operator.disable", %s, "account_id": %d, "operator_id": %d, "permissions": []}`, actor, acct, viewer), "InvalidRequest", "permissions"},
		{"reason on delivery.list", fmt.Sprintf(`{"command": "delivery.list", %s, "account_id": %d, "reason": "r"}`, actor, acct), "InvalidRequest", "reason"},
		{"a list filter on delivery.get", fmt.Sprintf(`{"command": "delivery.get", %s, "account_id": %d, "delivery_id": "dlv_x", "status": "failed"}`, actor, acct), "InvalidRequest", "status"},
		{"active on endpoint.create", fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://x.example.com", "events": ["approved"], "active": true}`, actor, acct), "InvalidRequest", "active"},
		{"a used action id", fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Again", "action_id": %q}`, actor, acct, used), "Conflict", ""},
	}
	before := w.items()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.call(c.doc)
			if got := failure(err); got != c.want {
				t.Errorf("failure %q (%v), want %s", got, err, c.want)
			}
			var ie messages.InvokeResponse_Error
			if c.field != "" && (!errors.As(err, &ie) || !strings.HasPrefix(ie.Message, c.field+" ")) {
				t.Errorf("refusal %q does not name the field %s", err, c.field)
			}
		})
	}
	if after := w.items(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused commands wrote: items before %v, after %v", before, after)
	}
	if len(w.sent) != 0 {
		t.Errorf("refused commands queued %d messages", len(w.sent))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepeatedActionsApplyOnce: a command repeated with its action id (a
// retried invocation) changes nothing more; account.create answers the
// account the first made.
func TestRepeatedActionsApplyOnce(t *testing.T) {
	w := newWorld(t)
	const doc = `{"command": "account.create", "actor": "ops@example.com", "action_id": "open-acme", "name": "Acme", "countries": ["SA"]}`
	first := num(obj(w.must(doc), "account")["id"])
	before := w.items()
	again := obj(w.must(doc), "account")
	if num(again["id"]) != first || again["name"] != "Acme" {
		t.Errorf("the repeat answered %v, want account %d", again, first)
	}
	op := fmt.Sprintf(`{"command": "operator.create", "actor": "ops@example.com", "action_id": "add-dana", "account_id": %d, "name": "Dana", "permissions": []}`, first)
	w.must(op)
	mid := w.items()
	if _, err := w.call(op); failure(err) != "Conflict" {
		t.Errorf("operator.create repeated: %v, want Conflict", err)
	}
	if after := w.items(); fmt.Sprint(after) != fmt.Sprint(mid) || fmt.Sprint(before) == fmt.Sprint(mid) {
		t.Errorf("items: before %v, after the first operator %v, after the repeat %v", before, mid, after)
	}
}

// TestStaleOperatorUpdateIsRefused: an update read before a disable cannot
// re-enable the operator.
func TestStaleOperatorUpdateIsRefused(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	acct := num(obj(w.must(`{"command": "account.create", "actor": "a", "name": "X", "countries": ["SA"]}`), "account")["id"])
	id := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", "actor": "a", "account_id": %d, "name": "O", "permissions": ["webhook_delivery.view"]}`, acct)), "operator")["id"])
	stale, err := w.st.Operator(ctx, acct, id)
	if err != nil {
		t.Fatal(err)
	}
	w.must(fmt.Sprintf(`{"command": "operator.disable", "actor": "a", "account_id": %d, "operator_id": %d}`, acct, id))
	stale.Name = "renamed"
	err = w.st.UpdateOperator(ctx, stale, domain.AuditRecord{AccountID: acct, ActionID: "stale-update", At: t0})
	if domain.ErrorCode(err) != domain.ECodeConflict {
		t.Errorf("stale update: %v, want a conflict", err)
	}
	if o, _ := w.st.Operator(ctx, acct, id); o.DisabledAt == nil {
		t.Error("the stale update re-enabled the operator")
	}
}
