package auditchain

import (
	"bytes"
	"reflect"
	"testing"
)

// Parse is Canonical's inverse for every version, its Hash the record's,
// and it refuses every single-byte change that makes the form ambiguous.
func TestParseIsCanonicalsInverse(t *testing.T) {
	review, second := int64(7), int64(4)
	for _, v := range []int{1, 2, 3} {
		l := Link{Version: v, AccountID: 1000000001, EntityID: 42, Seq: 3, ActionID: "act-1", Action: "entity_review.approve",
			OperatorID: 3, OperatorName: "Sara", Actor: "arn:aws:states:…", RequestID: "req-1", SecondApproverID: &second,
			ReviewID: &review, Reason: "line one\nline=two:three", Before: `{"status":"open"}`, After: `{"status":"approved"}`,
			At: "2026-11-26T01:00:00Z", SeenETag: `"abc"`, DossierETag: `"def"`, PrevHash: "00ff"}
		if v >= 2 {
			l.DossierSHA256 = "aa"
		}
		if v >= 3 {
			l.Identity, l.DecisionDocument, l.Signatures = "passkey", `{"action":"approve"}`, `[{"credential_id":"x"}]`
		}
		l.Hash, _ = Sum(l)
		got, err := Parse(Canonical(l))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if !reflect.DeepEqual(got, l) {
			t.Errorf("v%d: parsed %+v\nwant %+v", v, got, l)
		}
	}
	plain := Link{Version: 3, AccountID: 1, EntityID: 0, Seq: 1, ActionID: "a", Action: "account.create", At: "2026-11-26T01:00:00Z"}
	plain.Hash, _ = Sum(plain)
	if got, err := Parse(Canonical(plain)); err != nil || !reflect.DeepEqual(got, plain) {
		t.Errorf("absent optional numbers: %+v, %v", got, err)
	}
}

func TestParseRefuses(t *testing.T) {
	good := Canonical(Link{Version: 3, AccountID: 1, Seq: 1, ActionID: "a", Action: "x", At: "t"})
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"no version line", []byte("account_id=1:1\n")},
		{"unknown version", bytes.Replace(good, []byte("evs-audit/v3"), []byte("evs-audit/v9"), 1)},
		{"a byte after the last field", append(append([]byte{}, good...), 'x')},
		{"a length too long", bytes.Replace(good, []byte("action_id=1:a"), []byte("action_id=2:a"), 1)},
		{"a field renamed", bytes.Replace(good, []byte("action="), []byte("actiox="), 1)},
		{"a number that is none", bytes.Replace(good, []byte("seq=1:1"), []byte("seq=1:x"), 1)},
		{"the last field cut", good[:len(good)-1]},
	} {
		if _, err := Parse(tc.b); err == nil {
			t.Errorf("%s: parsed", tc.name)
		}
	}
}
