package admin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/admin"
)

// member is one key of a command document, with its value as JSON.
type member struct{ key, value string }

// hostileTemplate is a well-formed document of one command, and which of
// its keys hold free text and which ids.
type hostileTemplate struct {
	members []member
	text    []string
	ids     []string
}

func (h hostileTemplate) doc(members []member) string {
	var b strings.Builder
	b.WriteString("{")
	for i, m := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", m.key, m.value)
	}
	b.WriteString("}")
	return b.String()
}

// with is the template with key's value replaced (or the key renamed, when
// rename is set), or a member appended.
func (h hostileTemplate) with(key, rename, value string, repeat bool) string {
	out := make([]member, 0, len(h.members)+1)
	for _, m := range h.members {
		switch {
		case m.key == key && rename != "":
			out = append(out, member{rename, m.value})
		case m.key == key && !repeat:
			out = append(out, member{m.key, value})
		default:
			out = append(out, m)
		}
	}
	if repeat {
		out = append(out, member{key, value})
	}
	return h.doc(out)
}

// TestHostileAdminDocuments sends every admin command its document with
// each key in another case and each key given twice, every text field
// over-long or with control characters, and every id as 0, -1 and 2^63:
// each is refused as InvalidRequest naming the key, and no table changes.
func TestHostileAdminDocuments(t *testing.T) {
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Mine", "countries": ["SA"]}`), "account")["id"])
	op := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "O", "permissions": ["webhook_endpoint.manage", "webhook_delivery.view"]}`, actor, acct)), "operator")["id"])
	key, _ := obj(w.must(fmt.Sprintf(`{"command": "key.create", %s, "account_id": %d, "permissions": ["entity.view"]}`, actor, acct)), "api_key")["id"].(string)
	ep := num(obj(w.must(fmt.Sprintf(`{"command": "endpoint.create", %s, "account_id": %d, "url": "https://x.example.com", "events": ["approved"]}`, actor, acct)), "endpoint")["id"])

	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	n := func(i int64) string { return fmt.Sprint(i) }
	common := []member{{"actor", q("ops@example.com")}}
	change := append(common[:1:1], member{"action_id", q("hostile-1")})
	cmd := func(name string, base []member, rest ...member) []member {
		return append(append([]member{{"command", q(name)}}, base...), rest...)
	}
	a := member{"account_id", n(acct)}
	templates := map[string]hostileTemplate{
		"account.create": {cmd("account.create", change, member{"name", q("X")}, member{"countries", `["SA"]`}, member{"review_interval_days", "30"}, member{"four_eyes", `["escalate_to_aml"]`}, member{"extended_retention_years", "7"}),
			[]string{"actor", "action_id", "name"}, nil},
		"account.list": {cmd("account.list", common), []string{"actor"}, nil},
		"account.get":  {cmd("account.get", common, a), []string{"actor"}, []string{"account_id"}},
		"account.update": {cmd("account.update", change, a, member{"name", q("Y")}, member{"countries", `[{"code": "AE", "registration_pattern": "^A$", "registration_message": "m"}]`}, member{"extended_retention_years", "10"}),
			[]string{"actor", "action_id", "name"}, []string{"account_id"}},
		"key.create": {cmd("key.create", change, a, member{"permissions", `["entity.view"]`}, member{"description", q("d")}),
			[]string{"actor", "action_id", "description"}, []string{"account_id"}},
		"key.list":   {cmd("key.list", common, a), []string{"actor"}, []string{"account_id"}},
		"key.revoke": {cmd("key.revoke", change, a, member{"key_id", q(key)}), []string{"actor", "action_id", "key_id"}, []string{"account_id"}},
		"key.rotate": {cmd("key.rotate", change, a, member{"key_id", q(key)}, member{"overlap", q("1h")}), []string{"actor", "action_id", "key_id"}, []string{"account_id"}},
		"operator.create": {cmd("operator.create", change, a, member{"name", q("P")}, member{"permissions", `[]`}),
			[]string{"actor", "action_id", "name"}, []string{"account_id"}},
		"operator.list": {cmd("operator.list", common, a), []string{"actor"}, []string{"account_id"}},
		"operator.update": {cmd("operator.update", change, a, member{"operator_id", n(op)}, member{"name", q("Q")}),
			[]string{"actor", "action_id", "name"}, []string{"account_id", "operator_id"}},
		"operator.disable": {cmd("operator.disable", change, a, member{"operator_id", n(op)}), []string{"actor", "action_id"}, []string{"account_id", "operator_id"}},
		"endpoint.create": {cmd("endpoint.create", change, a, member{"url", q("https://y.example.com")}, member{"events", `["approved"]`}, member{"description", q("d")}),
			[]string{"actor", "action_id", "description"}, []string{"account_id"}},
		"endpoint.list": {cmd("endpoint.list", common, a, member{"operator_id", n(op)}), []string{"actor"}, []string{"account_id", "operator_id"}},
		"endpoint.get":  {cmd("endpoint.get", common, a, member{"endpoint_id", n(ep)}), []string{"actor"}, []string{"account_id", "endpoint_id"}},
		"endpoint.update": {cmd("endpoint.update", change, a, member{"endpoint_id", n(ep)}, member{"description", q("e")}),
			[]string{"actor", "action_id", "description"}, []string{"account_id", "endpoint_id"}},
		"endpoint.rotate": {cmd("endpoint.rotate", change, a, member{"endpoint_id", n(ep)}, member{"overlap", q("1h")}), []string{"actor", "action_id"}, []string{"account_id", "endpoint_id"}},
		"endpoint.delete": {cmd("endpoint.delete", change, a, member{"endpoint_id", n(ep)}), []string{"actor", "action_id"}, []string{"account_id", "endpoint_id"}},
		"endpoint.test":   {cmd("endpoint.test", change, a, member{"endpoint_id", n(ep)}), []string{"actor", "action_id"}, []string{"account_id", "endpoint_id"}},
		"delivery.list": {cmd("delivery.list", common, a, member{"endpoint_id", n(ep)}, member{"limit", "10"}),
			[]string{"actor"}, []string{"account_id", "endpoint_id"}},
		"delivery.get": {cmd("delivery.get", common, a, member{"delivery_id", q("dlv_x")}), []string{"actor", "delivery_id"}, []string{"account_id"}},
		"delivery.redeliver": {cmd("delivery.redeliver", change, a, member{"delivery_id", q("dlv_x")}, member{"reason", q("r")}),
			[]string{"actor", "action_id", "delivery_id", "reason"}, []string{"account_id"}},
		"audit.list":    {cmd("audit.list", common, a, member{"limit", "10"}), []string{"actor"}, []string{"account_id"}},
		"audit.verify":  {cmd("audit.verify", common, a), []string{"actor"}, []string{"account_id"}},
		"audit.dossier": {cmd("audit.dossier", common, a, member{"action_id", q("x")}), []string{"actor", "action_id"}, []string{"account_id"}},
		"evidence.get":  {cmd("evidence.get", common, a, member{"check_id", "1"}), []string{"actor"}, []string{"account_id", "check_id"}},
		"portal.link":   {cmd("portal.link", change, a, member{"operator_id", n(op)}), []string{"actor", "action_id"}, []string{"account_id", "operator_id"}},
		"passkey.list":  {cmd("passkey.list", common, a, member{"operator_id", n(op)}), []string{"actor"}, []string{"account_id", "operator_id"}},
		"passkey.revoke": {cmd("passkey.revoke", change, a, member{"operator_id", n(op)}, member{"credential_id", q("AAAA")}),
			[]string{"actor", "action_id", "credential_id"}, []string{"account_id", "operator_id"}},
	}
	before := w.items()
	refused := func(t *testing.T, doc, field, says string) {
		t.Helper()
		_, err := w.call(doc)
		if failure(err) != "InvalidRequest" {
			t.Errorf("%.300s: %v, want InvalidRequest", doc, err)
			return
		}
		if msg := err.Error(); !strings.Contains(msg, field) || !strings.Contains(msg, says) {
			t.Errorf("%.300s: refused as %.300q, want it to name %q and say %q", doc, msg, field, says)
		}
	}
	for name, tmpl := range templates {
		t.Run(name, func(t *testing.T) {
			for _, m := range tmpl.members {
				variants := []string{strings.ToUpper(m.key), strings.ToUpper(m.key[:1]) + m.key[1:]}
				for _, v := range variants {
					if v != m.key {
						refused(t, tmpl.with(m.key, v, "", false), v, "case-sensitive")
					}
				}
				refused(t, tmpl.with(m.key, "", m.value, true), m.key, "given twice")
			}
			for _, f := range tmpl.text {
				refused(t, tmpl.with(f, "", q(strings.Repeat("x", 10001)), false), f, "longer than")
				refused(t, tmpl.with(f, "", q("a\u001b[31mb"), false), f, "control characters")
				refused(t, tmpl.with(f, "", q("a\r\nb"), false), f, "control characters")
				refused(t, tmpl.with(f, "", q("a\u202eb"), false), f, "bidirectional")
				refused(t, tmpl.with(f, "", "\"a\xffb\"", false), "", "UTF-8")
			}
			if !admin.Changes(name) && name != "audit.dossier" {
				refused(t, tmpl.with("action_id", "", q("x"), true), "action_id", "changes nothing")
			}
			for _, f := range tmpl.ids {
				refused(t, tmpl.with(f, "", "0", false), f, "positive id")
				refused(t, tmpl.with(f, "", "-1", false), f, "positive id")
				refused(t, tmpl.with(f, "", "9223372036854775808", false), f, "out of range")
				refused(t, tmpl.with(f, "", "1.5", false), f, "whole number")
				refused(t, tmpl.with(f, "", "null", false), f, "null")
			}
		})
	}
	// Text is refused before anything is read: an account that does not
	// exist is not even looked up.
	for _, doc := range []string{
		`{"command": "key.create", "actor": "a", "account_id": 99999999, "permissions": ["entity.view"], "description": "a\u001bb"}`,
		`{"command": "endpoint.update", "actor": "a", "account_id": 99999999, "endpoint_id": 1, "description": "a\u2028b"}`,
		`{"command": "operator.update", "actor": "a", "account_id": 99999999, "operator_id": 1, "name": "a\u202eb"}`,
		`{"command": "delivery.redeliver", "actor": "a", "account_id": 99999999, "delivery_id": "d", "reason": "` + strings.Repeat("r", 1001) + `"}`,
	} {
		refused(t, doc, "", "")
	}
	if after := w.items(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("hostile documents changed the tables: %v, then %v", before, after)
	}
	for _, c := range []string{"account.create", "account.update", "key.create", "operator.create", "endpoint.create"} {
		if templates[c].members == nil {
			t.Errorf("no template for %s", c)
		}
	}
}
