package console_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// Every JSON body the console takes (sign-in, registration, signing,
// approval) is read once, strictly: a key given twice (at any depth), a
// key in another case, or one it does not take is refused, 400, naming
// the key, and nothing happens; the log names the key, bounded, and keeps
// nothing else of the body.
func TestScriptBodiesAreReadStrictly(t *testing.T) {
	w := newWorld(t)
	_, r := w.entity(t, domain.ReviewInProgress, dana, judged)
	b := w.signedIn(t, dana)
	csrf := csrfOf(t, b.get("/console/queue").body)
	fields := fmt.Sprintf(`{"action":"approve","review_id":"%d","action_id":"web-%s","reason":"documents_verified"}`, r.ID, rand.Text())
	approval := "/console/approvals/web-" + rand.Text()
	long := strings.Repeat("k", 60<<10)
	for _, tc := range []struct {
		name, path, body, want string
	}{
		{"sign-in options, a key it does not take", "/console/login/options", `{"operator_id":1}`, "operator_id is not a field of this request"},
		{"sign-in, response twice", "/console/login", `{"response":{},"response":{}}`, "response is given twice"},
		{"sign-in, Response", "/console/login", `{"Response":{}}`, `Response is not a field of this request (keys are case-sensitive: \"response\" is)`},
		{"sign-in, a key twice inside the response", "/console/login", `{"response":{"id":"a","id":"b"}}`, "response.id is given twice"},
		{"registration options, a key it does not take", "/console/passkeys/options", `{"name":"x"}`, "name is not a field of this request"},
		{"registration, response twice", "/console/passkeys", `{"name":"a","response":{},"response":{}}`, "response is given twice"},
		{"registration, Name", "/console/passkeys", `{"Name":"a","response":{}}`, "Name is not a field of this request"},
		{"signing options, Decision", "/console/sign/options", `{"Decision":` + fields + `}`, "Decision is not a field of this request"},
		{"signing options, decision twice", "/console/sign/options", `{"decision":` + fields + `,"decision":` + fields + `}`, "decision is given twice"},
		{"signing options, a field twice inside the decision", "/console/sign/options",
			`{"decision":{"action":"approve","action":"reject"}}`, "decision.action is given twice"},
		{"signing, response twice", "/console/sign", `{"decision":` + fields + `,"response":{},"response":{}}`, "response is given twice"},
		{"signing, Response", "/console/sign", `{"decision":` + fields + `,"Response":{}}`, "Response is not a field of this request"},
		{"signing, a field's value of another type", "/console/sign", `{"decision":{"review_id":1}}`, "decision.review_id must be a string"},
		{"approval options, a key it does not take", approval + "/options", `{"digest":"x"}`, "digest is not a field of this request"},
		{"approval, response twice", approval + "/approve", `{"response":{},"response":{}}`, "response is given twice"},
		{"approval, Response", approval + "/approve", `{"Response":{}}`, "Response is not a field of this request"},
		{"a long unknown key", "/console/sign/options", `{"` + long + `":1}`, "is not a field of this request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.sessions)
			p := b.postRaw(tc.path, csrf, tc.body)
			if p.status != http.StatusBadRequest || !strings.Contains(p.body, tc.want) || !strings.Contains(p.body, "Nothing was changed") {
				t.Errorf("%d, want 400 saying %q:\n%.400s", p.status, tc.want, p.body)
			}
			if len(w.sessions) != before {
				t.Error("a session was started")
			}
		})
	}
	if _, started := w.wf.inputOf(strings.TrimPrefix(approval, "/console/approvals/")); started {
		t.Error("an execution started")
	}
	if logs := w.logs.String(); strings.Contains(logs, long[:100]) || !strings.Contains(logs, "kkkk") {
		t.Errorf("the long key is not logged bounded:\n%.2000s", logs)
	}
}

// An execution's page reads the execution's input as the decision
// function does: an input it would refuse says nothing for sure, not even
// whose it is, so the page is not found. Read leniently, this one would
// be the operator's account's (the last of two spellings).
func TestAnExecutionsInputIsReadStrictly(t *testing.T) {
	w := newWorld(t)
	_, r := w.entity(t, domain.ReviewInProgress, dana, judged)
	b := w.signedIn(t, dana)
	for _, tc := range []struct {
		name, input string
		status      int
	}{
		{"account_id in another case", `{"action":"start","account_id":%d,"Account_id":%d,"review_id":%d,"operator_id":%d}`, http.StatusNotFound},
		{"account_id twice", `{"action":"start","account_id":%d,"account_id":%d,"review_id":%d,"operator_id":%d}`, http.StatusNotFound},
		{"read as the function reads it", `{"action":"start","account_id":%[2]d,"review_id":%[3]d,"operator_id":%[4]d}`, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "web-" + rand.Text()
			input := fmt.Sprintf(tc.input, w.account.ID+1, w.account.ID, r.ID, w.ops[dana].ID)
			if _, err := w.wf.Start(context.Background(), name, []byte(input)); err != nil {
				t.Fatal(err)
			}
			if p := b.get("/console/executions/" + name); p.status != tc.status {
				t.Errorf("%d, want %d:\n%.400s", p.status, tc.status, p.body)
			}
		})
	}
}

// A POST that carries neither Origin nor Sec-Fetch-Site (no browser sends
// one so) is refused by the shell before anything is read: here a signed-
// in operator's sign-out, with its CSRF token, which would otherwise end
// the session.
func TestAPostWithoutOriginIsRefused(t *testing.T) {
	w := newWorld(t)
	b := w.signedIn(t, dana)
	csrf := csrfOf(t, b.get("/console/queue").body)
	bare := &http.Client{Jar: b.c.Jar, CheckRedirect: b.c.CheckRedirect}
	p := b.read(bare.PostForm(w.srv.URL+"/console/signout", url.Values{"csrf": {csrf}}))
	if p.status != http.StatusForbidden || !strings.Contains(p.body, "neither an Origin nor a Sec-Fetch-Site") {
		t.Errorf("%d:\n%.400s", p.status, p.body)
	}
	if q := b.get("/console/queue"); q.status != http.StatusOK {
		t.Errorf("the session did not outlive the refused sign-out: %d", q.status)
	}
}
