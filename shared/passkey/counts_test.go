package passkey_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// signedRecord is a decision's record as its chain holds it, signed over
// doc by maker and, when given, by second (four eyes).
func signedRecord(t *testing.T, w *world, doc string, maker, second *passkeytest.Operator, after string) auditchain.Link {
	t.Helper()
	ctx := context.Background()
	var d passkey.Document
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	var sigs []domain.DecisionSignature
	s, err := maker.SignRecord(ctx, domain.SignatureMaker, passkey.PurposeDecision, doc)
	if err != nil {
		t.Fatal(err)
	}
	sigs = append(sigs, s)
	l := auditchain.Link{Version: auditchain.Version, AccountID: d.AccountID, EntityID: d.EntityID, ActionID: d.ActionID, Action: d.Action,
		OperatorID: maker.ID, OperatorName: maker.Name, ReviewID: &d.ReviewID, Reason: d.Reason, Before: "{}", After: after,
		At: domain.FormatTime(w.now), SeenETag: d.Seen, Identity: string(domain.IdentityPasskey), DecisionDocument: doc}
	if second != nil {
		s, err := second.SignRecord(ctx, domain.SignatureSecond, passkey.PurposeApproval, doc)
		if err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, s)
		l.SecondApproverID = &second.ID
	}
	b, err := json.Marshal(sigs)
	if err != nil {
		t.Fatal(err)
	}
	l.Signatures = string(b)
	return l
}

// One rule decides whether a signed record counts (passkey.AccountChain's
// Counts): the document, read strictly, names exactly the record, the
// signers are the record's operators, and every signature verifies with
// the keys the account's chain recorded. Each single difference between
// document and record is refused, by name; so is a document read two ways.
func TestASignedRecordCountsOnlyAsWhatItsDocumentNames(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	enrol := func(name string) *passkeytest.Operator {
		o, err := passkeytest.Enrol(ctx, w.svc, w.operator(t, name))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	maker, second, other := enrol("Maker"), enrol("Second"), enrol("Other")
	approve := fmt.Sprintf(`{"action":"approve","account_id":%d,"entity_id":1000,"review_id":7,"operator_id":%d,"action_id":"act-1","reason":"documents_verified","seen":"e1"}`, w.acct, maker.ID)
	risk := fmt.Sprintf(`{"action":"assess_risk","account_id":%d,"entity_id":1000,"review_id":7,"operator_id":%d,"action_id":"act-2","risk_level":"low"}`, w.acct, maker.ID)
	profile := fmt.Sprintf(`{"action":"update_profile","account_id":%d,"entity_id":1000,"review_id":7,"operator_id":%d,"action_id":"act-3","website_url":"https://a.example"}`, w.acct, maker.ID)
	fourEyes := func() auditchain.Link { return signedRecord(t, w, approve, maker, second, `{"status":"completed"}`) }
	assessed := func() auditchain.Link {
		return signedRecord(t, w, risk, maker, nil, `{"risk_level":"low","risk_level_updated_at":"2026-11-01T09:00:00.000Z"}`)
	}
	edited := func() auditchain.Link {
		return signedRecord(t, w, profile, maker, nil, `{"website_url":"https://a.example"}`)
	}
	// resigned is a record over another document, signed as it stands.
	resigned := func(doc string) func() auditchain.Link {
		return func() auditchain.Link { return signedRecord(t, w, doc, maker, nil, `{}`) }
	}
	edit := func(base func() auditchain.Link, f func(*auditchain.Link)) func() auditchain.Link {
		return func() auditchain.Link {
			l := base()
			f(&l)
			return l
		}
	}
	approveOnce := strings.Replace(approve, `"seen":"e1"`, `"seen":"e1","reason":"x"`, 1)
	for _, tc := range []struct {
		name   string
		record func() auditchain.Link
		want   string // in the refusal; "" counts
	}{
		{"a four-eyes approval as signed", fourEyes, ""},
		{"a risk assessment as signed", assessed, ""},
		{"a profile update as signed", edited, ""},
		{"another action: an approval's document in a closure", edit(fourEyes, func(l *auditchain.Link) { l.Action = string(domain.ActionEndRelationship) }), `action "approve" in the document, "end_relationship" in the record`},
		{"another action id", edit(fourEyes, func(l *auditchain.Link) { l.ActionID = "act-9" }), "action_id"},
		{"another account", edit(fourEyes, func(l *auditchain.Link) { l.AccountID++ }), "account_id"},
		{"another entity", edit(fourEyes, func(l *auditchain.Link) { l.EntityID = 2000 }), "entity_id 1000 in the document, 2000 in the record"},
		{"another review", edit(fourEyes, func(l *auditchain.Link) { l.ReviewID = new(int64(8)) }), "review_id 7 in the document, 8 in the record"},
		{"no review", edit(fourEyes, func(l *auditchain.Link) { l.ReviewID = nil }), "review_id 7 in the document, none in the record"},
		{"another operator", edit(fourEyes, func(l *auditchain.Link) { l.OperatorID = other.ID }), "operator_id"},
		{"another second operator", edit(fourEyes, func(l *auditchain.Link) { l.SecondApproverID = &other.ID }), "second approver"},
		{"the second operator left out", edit(fourEyes, func(l *auditchain.Link) { l.SecondApproverID = nil }), "names no second approver"},
		{"a second operator added", edit(assessed, func(l *auditchain.Link) { l.SecondApproverID = &second.ID }), "did not sign it"},
		{"the maker as second operator", edit(fourEyes, func(l *auditchain.Link) { l.SecondApproverID = &maker.ID }), "second approver"},
		{"another reason", edit(fourEyes, func(l *auditchain.Link) { l.Reason = "nothing to see" }), "reason"},
		{"another dossier seen", edit(fourEyes, func(l *auditchain.Link) { l.SeenETag = "e2" }), "seen"},
		{"declared, not signed by passkey", edit(fourEyes, func(l *auditchain.Link) { l.Identity = string(domain.IdentityDeclared) }), "identity"},
		{"another field value", edit(assessed, func(l *auditchain.Link) { l.After = `{"risk_level":"high"}` }), `risk_level "low" in the document, "high" in the record`},
		{"a field the record leaves out", edit(assessed, func(l *auditchain.Link) { l.After = `{}` }), "risk_level"},
		{"a field the document does not give", edit(edited, func(l *auditchain.Link) {
			l.After = `{"website_url":"https://a.example","social_url":"https://b.example"}`
		}), "social_url none in the document"},
		{"an after read two ways", edit(assessed, func(l *auditchain.Link) { l.After = `{"risk_level":"low","risk_level":"high"}` }), "after"},
		{"signatures over another spelling of the document", edit(fourEyes, func(l *auditchain.Link) { l.DecisionDocument = strings.Replace(approve, ",", ", ", 1) }), "digest"},
		{"a document key twice", resigned(approveOnce), "given twice"},
		{"a document key in another case", resigned(strings.Replace(approve, `"entity_id"`, `"Entity_ID"`, 1)), "case-sensitive"},
		{"a document key no request has", resigned(strings.Replace(approve, `"seen"`, `"comment":"x","seen"`, 1)), "comment"},
		{"another action's field in the document", resigned(strings.Replace(approve, `"seen"`, `"risk_level":"low","seen"`, 1)), "does not take"},
		{"a document that names no entity", resigned(strings.Replace(approve, `"entity_id":1000,`, "", 1)), "names no entity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acct, err := passkey.AccountRecords(ctx, w.st, w.acct)
			if err != nil {
				t.Fatal(err)
			}
			l := tc.record()
			checks, err := acct.Counts(config(), l)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
				for _, c := range checks {
					if !c.Verified {
						t.Errorf("counted, but check %+v", c)
					}
				}
			case err == nil:
				t.Fatalf("counted; want refused for %q", tc.want)
			case domain.ErrorCode(err) != domain.ECodeSignatureRequired || !strings.Contains(domain.ErrorMessage(err), tc.want):
				t.Errorf("refused %q (%s); want signature_required naming %q", domain.ErrorMessage(err), domain.ErrorCode(err), tc.want)
			default:
				for _, c := range checks {
					if c.Verified || c.Problem == "" {
						t.Errorf("a record that does not count, but check %+v", c)
					}
				}
			}
		})
	}
}

// An unsigned record counts only where the account's own chain had
// declared decisions accepted at the record's time: a setting turned on
// later believes nothing of before, and one turned off again stops at once.
func TestAnUnsignedRecordCountsAsTheAccountsChainHadItsSettings(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	setting := func(seq int64, action domain.Action, at time.Time, after string) auditchain.Link {
		return auditchain.Link{Seq: seq, Action: string(action), At: domain.FormatTime(at), After: after}
	}
	history := passkey.DeclaredOf([]auditchain.Link{
		setting(1, domain.ActionAccountCreate, t0, `{"name":"A","declared_decisions":false}`),
		{Seq: 2, Action: string(domain.ActionPasskeyAdd), At: domain.FormatTime(t0.Add(time.Hour)), After: `{"declared_decisions":true}`},
		setting(3, domain.ActionAccountUpdate, t0.Add(2*time.Hour), `{"name":"A","declared_decisions":true}`),
		setting(4, domain.ActionAccountUpdate, t0.Add(4*time.Hour), `{"name":"A","declared_decisions":false}`),
		setting(5, domain.ActionAccountUpdate, t0.Add(6*time.Hour), `{"declared_decisions":false,"declared_decisions":true}`),
	})
	for _, tc := range []struct {
		name   string
		at     time.Time
		counts bool
	}{
		{"before the account existed", t0.Add(-time.Hour), false},
		{"while off (a passkey.add saying otherwise changes nothing)", t0.Add(90 * time.Minute), false},
		{"once turned on", t0.Add(2 * time.Hour), true},
		{"while on", t0.Add(3 * time.Hour), true},
		{"once turned off again", t0.Add(5 * time.Hour), false},
		{"after a setting read two ways", t0.Add(7 * time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := auditchain.Link{AccountID: 1, EntityID: 5, Action: string(domain.ActionEndRelationship), At: domain.FormatTime(tc.at),
				Identity: string(domain.IdentityDeclared), After: "{}"}
			_, err := passkey.AccountChain{Declared: history}.Counts(config(), l)
			if (err == nil) != tc.counts {
				t.Errorf("counts %t (%v); want %t", err == nil, err, tc.counts)
			}
		})
	}
	// An unsigned record carrying a document is no declared decision.
	l := auditchain.Link{AccountID: 1, At: domain.FormatTime(t0.Add(3 * time.Hour)), DecisionDocument: "{}"}
	if _, err := (passkey.AccountChain{Declared: history}).Counts(config(), l); err == nil {
		t.Errorf("an unsigned record with a document counted")
	}
}

// TestASessionsRecordCountsOnlyAsAClaim: a record known by its session,
// unsigned, counts as the queue's claim (assign, start, or the older
// review.claim) whatever the account's setting, and as nothing else: an
// approval or a closure "taken in a session" is no record the service
// writes, so a writer of the records bucket cannot pass one off as such,
// even while the account accepts declared decisions.
func TestASessionsRecordCountsOnlyAsAClaim(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		action   domain.Action
		declared bool
		counts   bool
	}{
		{"an assign", domain.ActionAssign, false, true},
		{"a start", domain.ActionStart, false, true},
		{"a claim as trails before #35 record it", domain.ActionReviewClaim, false, true},
		{"an approval", domain.ActionApprove, false, false},
		{"an approval, declared decisions accepted", domain.ActionApprove, true, false},
		{"a closure, declared decisions accepted", domain.ActionEndRelationship, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := auditchain.Link{AccountID: 1, EntityID: 5, Action: string(tc.action), At: domain.FormatTime(t0),
				Identity: string(domain.IdentitySession), Actor: domain.SessionActor([]byte("cred")), After: "{}"}
			_, err := passkey.AccountChain{Declared: passkey.DeclaredAlways(tc.declared)}.Counts(config(), l)
			if (err == nil) != tc.counts {
				t.Errorf("counts %t (%v); want %t", err == nil, err, tc.counts)
			}
		})
	}
}
