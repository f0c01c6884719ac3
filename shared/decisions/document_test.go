package decisions_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
)

// Every refusal here comes before anything is read: the service has no
// store, so a request that got as far as reading one would panic.
func TestHostileDecisionDocuments(t *testing.T) {
	const ok = `"action":"approve","account_id":1,"review_id":2,"operator_id":3,"action_id":"a-1","reason":"documents_verified"`
	task := func(phase, request string, extra ...string) string {
		return `{"phase":"` + phase + `","request":{` + request + `}` + strings.Join(extra, "") + `,"execution_id":"x"}`
	}
	tests := []struct {
		name, doc, field, message string
	}{
		{"key in another case", task("validate", ok+`,"Account_ID":9`), "request.Account_ID", `keys are case-sensitive: "account_id" is`},
		{"action in another case", task("validate", `"ACTION":"reject",`+ok), "request.ACTION", "is not a field of a decision"},
		{"key twice", task("validate", ok+`,"review_id":5`), "request.review_id", "is given twice"},
		{"phase twice", `{"phase":"validate","phase":"apply","request":{` + ok + `}}`, "phase", "is given twice"},
		{"unknown key", task("validate", ok+`,"comment":"x"`), "request.comment", "is not a field of a decision"},
		{"a second approver typed into the request", task("apply", ok+`,"second_approver_id":4`), "request.second_approver_id", "is not a field"},
		{"an approval answer to validate", task("validate", ok, `,"approval":{"second_approver_id":4}`), "approval", "only Apply takes"},
		{"an approval answer with more than its field", task("apply", ok, `,"approval":{"second_approver_id":4,"operator_id":4}`), "approval.operator_id", "is not a field"},
		{"an approval answer in another case", task("apply", ok, `,"approval":{"Second_Approver_ID":4}`), "approval.Second_Approver_ID", "case-sensitive"},
		{"an approval answer naming a negative id", task("apply", ok, `,"approval":{"second_approver_id":-5}`), "approval.second_approver_id", "positive id"},
		{"an approval answer naming a string", task("apply", ok, `,"approval":{"second_approver_id":"4"}`), "approval.second_approver_id", "whole number"},
		{"id 0", task("validate", strings.Replace(ok, `"review_id":2`, `"review_id":0`, 1)), "request.review_id", "positive id"},
		{"id -1", task("validate", strings.Replace(ok, `"operator_id":3`, `"operator_id":-1`, 1)), "request.operator_id", "positive id"},
		{"id 2^63", task("validate", strings.Replace(ok, `"account_id":1`, `"account_id":9223372036854775808`, 1)), "request.account_id", "out of range"},
		{"id as a fraction", task("validate", strings.Replace(ok, `"account_id":1`, `"account_id":1.0`, 1)), "request.account_id", "whole number"},
		{"null for an id", task("validate", strings.Replace(ok, `"account_id":1`, `"account_id":null`, 1)), "request.account_id", "must not be null"},
		{"invalid UTF-8", "{\"phase\":\"validate\",\"request\":{" + ok + ",\"seen\":\"\xff\"}}", "request", "UTF-8"},
		{"two documents", task("validate", ok) + `{}`, "request", "data after"},
		{"not an object", `[]`, "request", "must be an object"},
		{"a reason on start", task("validate", `"action":"start","account_id":1,"review_id":2,"operator_id":3,"action_id":"a-1","reason":"x"`), "reason", "is not taken by start"},
		{"no reason on approve", task("validate", `"action":"approve","account_id":1,"review_id":2,"operator_id":3,"action_id":"a-1"`), "reason", "is required"},
		{"a reason of 100,000 characters", task("validate", strings.Replace(ok, "documents_verified", strings.Repeat("r", 100000), 1)), "reason", "longer than 1000 characters"},
		{"a reason with CR/LF", task("validate", strings.Replace(ok, "documents_verified", `ok\r\nApproved by: CFO`, 1)), "reason", "control characters"},
		{"a reason with an escape", task("validate", strings.Replace(ok, "documents_verified", `ok\u001b[31m`, 1)), "reason", "control characters"},
		{"a reason with a bidi override", task("validate", strings.Replace(ok, "documents_verified", "ok\u202edesrever", 1)), "reason", "bidirectional"},
		{"another action's field", task("validate", ok+`,"assignee_id":4`), "assignee_id", "is not a field of approve"},
		{"risk on adjudicate", task("validate", `"action":"adjudicate_match","account_id":1,"review_id":2,"operator_id":3,"action_id":"a","match_id":"m","verdict":"true_positive","risk_level":"high"`), "risk_level", "is not a field of adjudicate_match"},
		{"a verdict outside the list", task("validate", `"action":"adjudicate_match","account_id":1,"review_id":2,"operator_id":3,"action_id":"a","match_id":"m","verdict":"maybe"`), "verdict", "true_positive or false_positive"},
		{"a risk level outside the list", task("validate", `"action":"assess_risk","account_id":1,"review_id":2,"operator_id":3,"action_id":"a","risk_level":"HIGH"`), "risk_level", "low, medium, high"},
		{"an action id with control characters", task("validate", strings.Replace(ok, `"a-1"`, `"a\t1"`, 1)), "action_id", "control characters"},
		{"an unknown action", task("validate", strings.Replace(ok, `"approve"`, `"Approve"`, 1)), "action", "is not an action"},
		{"a summary with an escape", task("validate", `"action":"update_profile","account_id":1,"review_id":2,"operator_id":3,"action_id":"a","business_activity_summary":"x\u001by"`), "business_activity_summary", "control characters"},
		{"a URL with a line break", task("validate", `"action":"update_profile","account_id":1,"review_id":2,"operator_id":3,"action_id":"a","website_url":"https://a.example/\n"`), "website_url", "control characters"},
	}
	svc := &decisions.Service{} // no store: see above
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.HandleDocument(context.Background(), json.RawMessage(tt.doc))
			var ie messages.InvokeResponse_Error
			if !errors.As(err, &ie) || ie.Type != domain.FailInvalid {
				t.Fatalf("HandleDocument = %v, want %s", err, domain.FailInvalid)
			}
			if !strings.Contains(ie.Message, tt.field) || !strings.Contains(ie.Message, tt.message) {
				t.Errorf("refusal %q, want it to name %q and say %q", ie.Message, tt.field, tt.message)
			}
			if strings.Contains(tt.doc, `"phase":"validate"`) && tt.field != "approval" {
				apply := strings.Replace(tt.doc, `"phase":"validate"`, `"phase":"apply"`, 1)
				if _, err := svc.HandleDocument(context.Background(), json.RawMessage(apply)); !errors.As(err, &ie) || ie.Type != domain.FailInvalid {
					t.Errorf("Apply of the same request: %v, want %s before any lookup", err, domain.FailInvalid)
				}
			}
			if len(ie.Message) > 2000 {
				t.Errorf("the refusal is %d bytes: it echoes the input", len(ie.Message))
			}
		})
	}
}

// The document a command line or test builds is read back as it was built,
// but for the second approver, which only the approval answer carries.
func TestDocumentCarriesNoSecondApprover(t *testing.T) {
	in := decisions.TaskInput{Phase: decisions.PhaseApply, Request: decisions.Request{Action: domain.ActionApprove, AccountID: 1, ReviewID: 2,
		OperatorID: 3, ActionID: "a", Reason: "r"}, Approval: json.RawMessage(`{"second_approver_id":5}`)}
	doc := string(decisions.Document(in))
	if strings.Contains(doc, `"request":{`) && strings.Contains(doc[:strings.Index(doc, `"approval"`)], "second_approver_id") {
		t.Errorf("the request carries the second approver: %s", doc)
	}
	if !strings.Contains(doc, `"approval":{"second_approver_id":5}`) {
		t.Errorf("the approval answer is not carried whole: %s", doc)
	}
}
