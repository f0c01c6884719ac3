package console_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

func TestSignADecision(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	e, r := w.entity(t, domain.ReviewInProgress, dana, judged)
	b := w.signedIn(t, dana)
	path := "/console/reviews/" + itoa(r.ID)
	approve := formWith(t, b.get(path).body, "data-action", "approve")

	// The confirmation page says the decision in words.
	confirm := b.submit(approve, url.Values{"reason_code": {"documents_verified"}, "note": {"All papers  checked"}})
	if confirm.status != http.StatusOK {
		t.Fatalf("confirm: %d\n%s\n%s", confirm.status, confirm.body, w.logs.String())
	}
	tag := dossier.ETag(e, dossier.FormMarkdown)
	for _, want := range []string{"Approve", "documents_verified: All papers checked", e.LegalName, escaped(tag), "Sign and submit"} {
		if !strings.Contains(confirm.body, want) {
			t.Errorf("the confirmation does not show %q", want)
		}
	}

	// Signatures that do not sign this decision start nothing.
	for _, tc := range []struct {
		name string
		run  func(t *testing.T) page
	}{
		{"the fields changed after the options", func(t *testing.T) page {
			c := ceremonyOf(t, confirm.body)
			opts := b.postJSON(c.options, c.csrf, map[string]any{"decision": c.fields})
			resp, err := b.auth.Get([]byte(opts.body))
			if err != nil {
				t.Fatal(err)
			}
			changed := map[string]string{}
			for k, v := range c.fields {
				changed[k] = v
			}
			changed["reason"] = "low_risk_profile"
			return b.postJSON(c.submit, c.csrf, map[string]any{"decision": changed, "response": rawJSON(resp)})
		}},
		{"no user verification", func(t *testing.T) page {
			b.auth.UV = false
			defer func() { b.auth.UV = true }()
			return b.ceremony(confirm, "")
		}},
		{"without the CSRF token", func(t *testing.T) page {
			c := ceremonyOf(t, confirm.body)
			return b.postJSON(c.options, "", map[string]any{"decision": c.fields})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p := tc.run(t); p.status == http.StatusOK {
				t.Errorf("accepted: %s", p.body)
			}
			if _, started := w.wf.inputOf(approve.hidden.Get("action_id")); started {
				t.Fatal("an execution started")
			}
		})
	}

	// Signed: the workflow runs the request, signed by its operator over
	// the dossier seen, and the review is decided.
	next := nextOf(t, b.ceremony(confirm, ""))
	name := approve.hidden.Get("action_id")
	if !strings.HasPrefix(next, "/console/executions/"+name) {
		t.Fatalf("sent to %s", next)
	}
	req, ok := w.wf.inputOf(name)
	if !ok || req.OperatorID != w.ops[dana].ID || req.AccountID != w.account.ID || req.Action != domain.ActionApprove ||
		req.Seen != tag || req.Reason != "documents_verified: All papers checked" || req.Signature == nil {
		t.Fatalf("execution input %+v", req)
	}
	if p := b.get(next); p.status != http.StatusOK || !strings.Contains(p.body, "Decision applied") {
		t.Fatalf("execution page: %d\n%s", p.status, p.body)
	}
	got, err := w.st.Review(ctx, w.account.ID, r.ID)
	if err != nil || got.Status != domain.ReviewCompleted || domain.Deref(got.Outcome) != domain.OutcomeApproved {
		t.Fatalf("review %+v, %v", got, err)
	}
	// The audit record's signature verifies with the stored key alone.
	rec, err := w.st.AuditRecord(ctx, w.account.ID, name)
	if err != nil || rec.Identity != domain.IdentityPasskey || len(rec.Signatures) != 1 {
		t.Fatalf("audit record %+v, %v", rec, err)
	}
	sig := rec.Signatures[0]
	keys, err := w.st.Passkeys(ctx, w.account.ID, w.ops[dana].ID)
	if err != nil || len(keys) != 1 {
		t.Fatal(keys, err)
	}
	nonce, _ := base64.RawURLEncoding.DecodeString(sig.Nonce)
	a := passkey.Assertion{CredentialID: sig.CredentialID, AuthenticatorData: sig.AuthenticatorData, ClientDataJSON: sig.ClientDataJSON,
		Signature: sig.Signature, UserHandle: sig.UserHandle}
	if err := passkey.VerifyRecord(keys[0].PublicKey, w.keys.Config, a, nonce, decisions.Digest(req)); err != nil || sig.Digest != decisions.Digest(req) {
		t.Errorf("the recorded signature does not verify: %v", err)
	}

	// Sent again, nothing more happens.
	if p := b.ceremony(confirm, ""); p.status == http.StatusOK && nextOf(t, p) != next {
		t.Errorf("sent again: %s", p.body)
	}

	// Another account's operator is shown nothing of it.
	if p := w.stranger(t).get(next); p.status != http.StatusNotFound {
		t.Errorf("another account's operator: %d", p.status)
	}
}

func TestStaleDossier(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, r := w.entity(t, domain.ReviewInProgress, dana, judged)
	b := w.signedIn(t, dana)
	page := b.get("/console/reviews/" + itoa(r.ID))
	confirm := b.submit(formWith(t, page.body, "data-action", "approve"), url.Values{"reason_code": {"low_risk_profile"}})
	if confirm.status != http.StatusOK {
		t.Fatalf("confirm: %d", confirm.status)
	}

	// Meanwhile another operator escalates the review: the dossier moves.
	o, err := passkeytest.Enrol(ctx, w.keys, w.ops[sami])
	if err != nil {
		t.Fatal(err)
	}
	escalate := decisions.Request{Action: domain.ActionEscalate, AccountID: w.account.ID, EntityID: r.EntityID, ReviewID: r.ID, OperatorID: o.ID,
		ActionID: w.next("escalate"), Reason: "needs_supervisor: ownership"}
	a, err := o.Sign(ctx, passkey.PurposeDecision, decisions.Digest(escalate))
	if err != nil {
		t.Fatal(err)
	}
	escalate.Signature = &a
	if _, _, err := w.decide.Apply(ctx, escalate, nil); err != nil {
		t.Fatal(err)
	}

	// Signed now, the decision is refused by the workflow as a stale view:
	// its page says what changed and leads to the fresh dossier.
	next := nextOf(t, b.ceremony(confirm, ""))
	p := b.get(next)
	for _, want := range []string{"The dossier changed after it was seen", "Escalate to a supervisor", "needs_supervisor: ownership", "Sami",
		`href="/console/reviews/` + itoa(r.ID) + `"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the stale view does not show %q\n%s", want, p.body)
		}
	}
	got, err := w.st.Review(ctx, w.account.ID, r.ID)
	if err != nil || got.Status != domain.ReviewEscalated {
		t.Errorf("review %+v, %v", got, err)
	}

	// A form of the old page is refused before anything is signed.
	reject := b.submit(formWith(t, page.body, "data-action", "reject"), url.Values{"reason_code": {"unreachable"}})
	if reject.status != http.StatusConflict || !strings.Contains(reject.body, "The dossier changed") || strings.Contains(reject.body, "Sign and submit") {
		t.Errorf("an old form: %d", reject.status)
	}
}

// stranger is a signed-in operator of another account, who may decide.
func (w *world) stranger(t *testing.T) *browser {
	t.Helper()
	ctx := context.Background()
	now := w.clock.Now()
	other, err := w.st.CreateAccount(ctx, "Elsewhere "+t.Name(), now)
	if err != nil {
		t.Fatal(err)
	}
	op, err := w.st.CreateOperator(ctx, other.ID, "Olga Outsider", []string{domain.PermReviewDecide}, now)
	if err != nil {
		t.Fatal(err)
	}
	o, err := passkeytest.Enrol(ctx, w.keys, op)
	if err != nil {
		t.Fatal(err)
	}
	b := w.browser(t)
	b.auth = o.Auth
	b.signIn()
	return b
}

// escaped is s as a page shows it in text or an attribute.
func escaped(s string) string { return strings.ReplaceAll(s, `"`, "&#34;") }

type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }
