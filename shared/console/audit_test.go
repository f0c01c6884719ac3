package console_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/queue"
)

// The review page's audit trail says how each operator was known: Take
// the next one is the taker's, in the session their passkey signed in to;
// a passkey decision shows each signature checked against the key the
// account's chain recorded (an altered one does not verify); a declared
// decision says it was not signed, and that it does not count where the
// account's chain did not accept declared decisions.
func TestAuditTrailHow(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, r := w.entity(t, domain.ReviewOpen, "")
	b := w.signedIn(t, dana)

	take := formWith(t, b.get("/console/queue").body, "action", "/console/queue/next")
	if got := b.submit(take, nil); got.status != http.StatusSeeOther || got.header.Get("Location") != fmt.Sprintf("/console/reviews/%d", r.ID) {
		t.Fatalf("take the next one: %d to %q", got.status, got.header.Get("Location"))
	}
	danaKey := base64.RawURLEncoding.EncodeToString(b.auth.Credentials()[0].ID)
	// The claim's records, assign then start: Dana's, known by her
	// session's passkey, in the claim's own transaction (the review moved
	// with them).
	for _, tc := range []struct {
		actionID string
		action   domain.Action
	}{{take.hidden.Get("action_id"), domain.ActionAssign}, {queue.StartActionID(take.hidden.Get("action_id")), domain.ActionStart}} {
		rec, err := w.st.AuditRecord(ctx, w.account.ID, tc.actionID)
		if err != nil || rec.Action != tc.action || rec.OperatorID != w.ops[dana].ID || rec.Identity != domain.IdentitySession ||
			rec.Actor != "session:"+danaKey || domain.Deref(rec.ReviewID) != r.ID {
			t.Fatalf("the claim's %s record %+v, %v", tc.action, rec, err)
		}
	}
	if got, err := w.st.Review(ctx, w.account.ID, r.ID); err != nil || got.Status != domain.ReviewInProgress || domain.Deref(got.AssignedUserID) != w.ops[dana].ID {
		t.Fatalf("the claimed review %+v, %v", got, err)
	}

	sami, err := passkeytest.Enrol(ctx, w.keys, w.ops[sami])
	if err != nil {
		t.Fatal(err)
	}
	samiKey := base64.RawURLEncoding.EncodeToString(sami.Auth.Credentials()[0].ID)
	// Each record as the decision function writes one: a signed one keeps
	// the document naming it, and its maker's signature over it.
	put := func(actionID string, identity domain.Identity, reason string, alter func(*domain.DecisionSignature)) {
		t.Helper()
		a := domain.AuditRecord{AccountID: w.account.ID, ActionID: actionID, Action: domain.ActionAssessRisk, OperatorID: sami.ID,
			OperatorName: sami.Name, ReviewID: &r.ID, EntityID: r.EntityID, Reason: reason, At: w.clock.Now(), Identity: identity}
		if identity == domain.IdentityPasskey {
			a.DecisionDocument = passkeytest.Document(a)
			s, err := sami.SignRecord(ctx, domain.SignatureMaker, passkey.PurposeDecision, a.DecisionDocument)
			if err != nil {
				t.Fatal(err)
			}
			alter(&s)
			a.Signatures = []domain.DecisionSignature{s}
		}
		if err := w.st.PutAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	put("how-signed", domain.IdentityPasskey, "signed and sound", func(*domain.DecisionSignature) {})
	put("how-forged", domain.IdentityPasskey, "signed, digest altered", func(s *domain.DecisionSignature) { s.Digest = passkey.DocumentDigest([]byte("another document")) })
	put("how-declared", domain.IdentityDeclared, "declared only", nil)

	body := b.get(fmt.Sprintf("/console/reviews/%d", r.ID)).body
	rows := auditRows(t, body)
	t.Logf("the audit trail's How, by reason: %q", rows)
	for _, tc := range []struct{ reason, want string }{
		{"signed and sound", "Passkey-signed Maker " + fmt.Sprint(sami.ID) + ", passkey " + samiKey + ": verified"},
		{"signed, digest altered", "Passkey-signed Maker " + fmt.Sprint(sami.ID) + ", passkey " + samiKey + ": does not verify (The signed digest is not the recorded document's.)"},
		// The account's chain never accepted declared decisions: the one
		// rule does not count it, and the trail says so.
		// (Its time is the record's: the row is matched up to it.)
		{"declared only", "Declared, not signed: does not count (It is not signed, and the account did not accept declared decisions at "},
		{"taken from the queue", "Signed-in session, passkey " + danaKey}, // the claim's assign and start
	} {
		t.Run(tc.reason, func(t *testing.T) {
			how, ok := rows[tc.reason]
			if !ok {
				t.Fatalf("no audit row with reason %q in %v", tc.reason, rows)
			}
			if how != tc.want && !(strings.HasSuffix(tc.want, " at ") && strings.HasPrefix(how, tc.want)) {
				t.Errorf("How = %q, want %q", how, tc.want)
			}
		})
	}
}

var (
	auditSection = regexp.MustCompile(`(?s)<h2>Audit trail, newest first</h2>.*?</table>`)
	auditRow     = regexp.MustCompile(`(?s)<tr><td data-label="When">.*?<td data-label="Reason">(.*?)</td><td data-label="How">(.*?)</td></tr>`)
	tags         = regexp.MustCompile(`<[^>]+>`)
)

// auditRows are the audit section's How cells by reason, as text.
func auditRows(t *testing.T, body string) map[string]string {
	t.Helper()
	section := auditSection.FindString(body)
	if section == "" {
		t.Fatalf("no audit trail on the page:\n%s", body)
	}
	out := map[string]string{}
	for _, m := range auditRow.FindAllStringSubmatch(section, -1) {
		how := strings.Join(strings.Fields(tags.ReplaceAllString(m[2], " ")), " ")
		how = strings.NewReplacer(" :", ":", " ,", ",").Replace(strings.ReplaceAll(how, "&#39;", "'"))
		out[strings.TrimSpace(tags.ReplaceAllString(m[1], ""))] = how
	}
	return out
}
