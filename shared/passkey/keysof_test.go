package passkey_test

import (
	"testing"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// The account's chain records a key only in a passkey.add document read
// one way: a key given twice, or a document that is not JSON, records none.
func TestKeysOfReadsThePasskeyRecordsStrictly(t *testing.T) {
	for _, tc := range []struct {
		name, after string
		recorded    bool
	}{
		{"one reading", `{"operator_id":3,"credential_id":"c1","public_key":"AQID"}`, true},
		{"the key given twice", `{"operator_id":3,"credential_id":"c1","public_key":"AQID","public_key":"BAUG"}`, false},
		{"not JSON", `{"operator_id":3,`, false},
		{"no key", `{"operator_id":3,"credential_id":"c1"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := passkey.KeysOf([]auditchain.Link{{Action: string(domain.ActionPasskeyAdd), After: tc.after}})
			if got := len(keys) == 1; got != tc.recorded {
				t.Errorf("recorded %t (%v), want %t", got, keys, tc.recorded)
			}
		})
	}
}

// Judge shows every decision by the one rule, signed or not: a record that
// is no decision has no check; an unsigned decision that counts has none;
// one that does not count has one failed check of role unsigned.
func TestJudgeShowsEveryDecision(t *testing.T) {
	off := passkey.AccountChain{}
	for _, tc := range []struct {
		name   string
		link   auditchain.Link
		failed bool
		checks int
	}{
		{"no decision (an operator added)", auditchain.Link{Action: string(domain.ActionOperatorCreate)}, false, 0},
		{"a session's claim", auditchain.Link{Action: string(domain.ActionAssign), Identity: string(domain.IdentitySession)}, false, 0},
		{"a session's approval", auditchain.Link{Action: string(domain.ActionApprove), Identity: string(domain.IdentitySession)}, true, 1},
		{"declared where never accepted", auditchain.Link{Action: string(domain.ActionApprove), Identity: string(domain.IdentityDeclared),
			At: "2026-11-01T00:00:00.000Z"}, true, 1},
		{"a document without a signature", auditchain.Link{Action: string(domain.ActionApprove), DecisionDocument: "{}"}, true, 1},
		{"an unsigned closure", auditchain.Link{Action: string(domain.ActionEndRelationship)}, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks := off.Judge(config(), tc.link)
			if len(checks) != tc.checks {
				t.Fatalf("%d checks %+v, want %d", len(checks), checks, tc.checks)
			}
			for _, c := range checks {
				if c.Verified == tc.failed || c.Role != passkey.RoleUnsigned || c.Problem == "" {
					t.Errorf("check %+v; want failed %t, of role %s, saying why", c, tc.failed, passkey.RoleUnsigned)
				}
			}
		})
	}
}
