package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/workflow"
)

// escalateToAML has the maker sign an AML escalation of the review, which
// the account gives four eyes: it waits for a second operator. It returns
// the decision's action id.
func escalateToAML(t *testing.T, maker *browser, r domain.Review) string {
	t.Helper()
	f := formWith(t, maker.get("/console/reviews/"+itoa(r.ID)).body, "data-action", "escalate_to_aml")
	confirm := maker.submit(f, url.Values{"reason_code": {"possible_sanctions_match"}, "note": {"NK-first looks right"}})
	if confirm.status != http.StatusOK {
		t.Fatalf("confirm: %d\n%s", confirm.status, confirm.body)
	}
	p := maker.get(nextOf(t, maker.ceremony(confirm, "")))
	if !strings.Contains(p.body, "Waiting for a second operator") || !strings.Contains(p.body, `data-refresh="15"`) {
		t.Fatalf("the execution does not wait:\n%s", p.body)
	}
	return f.hidden.Get("action_id")
}

func TestSecondOperatorApproves(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, r := w.entity(t, domain.ReviewInProgress, dana)
	maker, second, viewer := w.signedIn(t, dana), w.signedIn(t, sami), w.signedIn(t, vera)
	id := escalateToAML(t, maker, r)
	path := "/console/approvals/" + id

	// The queue lists it: to the second operator as theirs to answer, to
	// the maker as someone else's.
	if p := second.get("/console/queue"); !strings.Contains(p.body, `href="`+path+`"`) || !strings.Contains(p.body, "possible_sanctions_match: NK-first looks right") {
		t.Errorf("the queue does not offer the approval:\n%s", p.body)
	}
	if p := maker.get("/console/queue"); strings.Contains(p.body, `href="`+path+`"`) || !strings.Contains(p.body, "another operator approves") {
		t.Error("the queue offers the maker their own approval")
	}

	// Neither the maker nor a viewer is offered anything to approve.
	for _, tc := range []struct {
		name string
		b    *browser
	}{{"the maker", maker}, {"a viewer", viewer}} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.b.get(path)
			if p.status != http.StatusForbidden || strings.Contains(p.body, "data-ceremony") || strings.Contains(p.body, "Refuse the decision") {
				t.Errorf("approval page: %d\n%s", p.status, p.body)
			}
			csrf := csrfOf(t, tc.b.get("/console/queue").body)
			if p := tc.b.postJSON(path+"/options", csrf, map[string]any{}); p.status != http.StatusForbidden {
				t.Errorf("signing options: %d", p.status)
			}
			if p := tc.b.post(path+"/refuse", url.Values{"csrf": {csrf}, "reason": {"no"}}); p.status != http.StatusForbidden {
				t.Errorf("refusal: %d", p.status)
			}
		})
	}

	// The second operator reads it and signs the same document.
	p := second.get(path)
	if p.status != http.StatusOK || !strings.Contains(p.body, "Sign and approve") || !strings.Contains(p.body, "Dana") ||
		!strings.Contains(p.body, `&#34;action&#34;: &#34;escalate_to_aml&#34;`) {
		t.Fatalf("approval page: %d\n%s", p.status, p.body)
	}
	next := nextOf(t, second.ceremony(p, ""))
	if done := second.get(next); !strings.Contains(done.body, "Decision applied") {
		t.Fatalf("after approval:\n%s", done.body)
	}
	got, err := w.st.Review(ctx, w.account.ID, r.ID)
	if err != nil || domain.Deref(got.Escalation) != domain.EscalationAML {
		t.Fatalf("review %+v, %v", got, err)
	}
	rec, err := w.st.AuditRecord(ctx, w.account.ID, id)
	if err != nil || domain.Deref(rec.SecondApproverID) != w.ops[sami].ID || len(rec.Signatures) != 2 {
		t.Errorf("audit record: second approver %v, %d signatures, %v", rec.SecondApproverID, len(rec.Signatures), err)
	}
	if _, err := w.st.PendingApproval(ctx, w.account.ID, id); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("still pending: %v", err)
	}
	if p := second.get(path); p.status != http.StatusNotFound {
		t.Errorf("the approval page after approval: %d", p.status)
	}
}

func TestSecondOperatorRefusesAStaleDecision(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, r := w.entity(t, domain.ReviewInProgress, dana)
	maker, second := w.signedIn(t, dana), w.signedIn(t, sami)
	id := escalateToAML(t, maker, r)
	path := "/console/approvals/" + id

	// The dossier moves while the decision waits.
	o, err := passkeytest.Enrol(ctx, w.keys, w.ops[dana])
	if err != nil {
		t.Fatal(err)
	}
	assess := decisions.Request{Action: domain.ActionAssessRisk, AccountID: w.account.ID, EntityID: r.EntityID, ReviewID: r.ID, OperatorID: o.ID,
		ActionID: w.next("assess"), RiskLevel: "high", Reason: "jurisdiction"}
	a, err := o.Sign(ctx, passkey.PurposeDecision, decisions.Digest(assess))
	if err != nil {
		t.Fatal(err)
	}
	assess.Signature = &a
	if _, _, err := w.decide.Apply(ctx, assess, nil); err != nil {
		t.Fatal(err)
	}

	// It says so, and offers no approval.
	p := second.get(path)
	if p.status != http.StatusOK || !strings.Contains(p.body, "The dossier changed after it was seen") || !strings.Contains(p.body, "Assess the risk") ||
		strings.Contains(p.body, "Sign and approve") {
		t.Fatalf("stale approval page: %d\n%s", p.status, p.body)
	}
	csrf := csrfOf(t, p.body)
	if opts := second.postJSON(path+"/options", csrf, map[string]any{}); opts.status != http.StatusUnprocessableEntity {
		t.Errorf("signing options for a stale decision: %d", opts.status)
	}

	// It can be refused, with a reason.
	if p := second.post(path+"/refuse", url.Values{"csrf": {csrf}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("refusal without a reason: %d", p.status)
	}
	refused := second.post(path+"/refuse", url.Values{"csrf": {csrf}, "reason": {"The risk was reassessed since"}})
	if refused.status != http.StatusSeeOther || refused.header.Get("Location") != "/console/executions/"+id+"?answered=1" {
		t.Fatalf("refusal: %d to %q", refused.status, refused.header.Get("Location"))
	}
	x, err := w.wf.Describe(ctx, w.wf.ExecutionARN(id))
	if err != nil || x.Status != workflow.StatusFailed || x.Error != workflow.RefusedError || !strings.Contains(x.Cause, "The risk was reassessed since") {
		t.Errorf("execution %+v, %v", x, err)
	}
	if page := second.follow(refused); !strings.Contains(page.body, "SecondApprovalRefused") {
		t.Errorf("the execution page after refusal:\n%s", page.body)
	}
	if _, err := w.st.PendingApproval(ctx, w.account.ID, id); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("still pending: %v", err)
	}
	got, err := w.st.Review(ctx, w.account.ID, r.ID)
	if err != nil || got.Escalation != nil {
		t.Errorf("review %+v, %v", got, err)
	}
}
