package admin_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/schema"
)

// audit.list says how each operator was known: a passkey decision's
// signatures, each checked against the key the account's chain recorded
// (a tampered one shows as not verifying, the listing still answered); a
// declared decision, a session's claim, and a record that is no decision.
func TestAuditListIdentity(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	cfg := passkey.Config{RPID: "localhost", RPDisplayName: "EVS", Origins: []string{"http://localhost:3000"}}
	w.h.Passkeys = cfg
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Trail", "countries": ["SA"]}`), "account")["id"])
	keys := &passkey.Service{Store: w.st, Clock: domain.SystemClock, Config: cfg}
	enrol := func(name string) *passkeytest.Operator {
		id := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": %q, "permissions": ["entity.review.decide"]}`, actor, acct, name)), "operator")["id"])
		op, err := w.st.Operator(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		o, err := passkeytest.Enrol(ctx, keys, op)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	maker, second := enrol("Dana"), enrol("Omar")
	credOf := func(o *passkeytest.Operator) string {
		return base64.RawURLEncoding.EncodeToString(o.Auth.Credentials()[0].ID)
	}
	// A decision signed as the decision function signs one: the maker's
	// and the second operator's assertions over the document's digest.
	sign := func(o *passkeytest.Operator, role, purpose, doc string) domain.DecisionSignature {
		s, err := o.SignRecord(ctx, role, purpose, doc)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// A decision on an entity, its document naming it as the decision
	// function writes one.
	record := func(id string, a domain.Action) domain.AuditRecord {
		return domain.AuditRecord{AccountID: acct, EntityID: domain.ScopedID(acct, 42), ReviewID: new(domain.ScopedID(acct, 43)), ActionID: id, Action: a,
			OperatorID: maker.ID, OperatorName: maker.Name, Reason: "ok", At: t0}
	}
	put := func(a domain.AuditRecord) {
		if err := w.st.PutAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	signed := record("signed", domain.ActionApprove)
	signed.SecondApproverID, signed.Identity = &second.ID, domain.IdentityPasskey
	signed.DecisionDocument = passkeytest.Document(signed)
	signed.Signatures = []domain.DecisionSignature{sign(maker, domain.SignatureMaker, passkey.PurposeDecision, signed.DecisionDocument),
		sign(second, domain.SignatureSecond, passkey.PurposeApproval, signed.DecisionDocument)}
	put(signed)
	tampered := record("tampered", domain.ActionApprove)
	tampered.Identity = domain.IdentityPasskey
	tampered.DecisionDocument = passkeytest.Document(tampered)
	tampered.Signatures = []domain.DecisionSignature{sign(maker, domain.SignatureMaker, passkey.PurposeDecision, tampered.DecisionDocument)}
	put(tampered)
	// Signed over the document of another record: its signature verifies,
	// but the document does not name the record it is kept in.
	copied := record("copied", domain.ActionEndRelationship)
	copied.Identity, copied.DecisionDocument, copied.Signatures = domain.IdentityPasskey, tampered.DecisionDocument, tampered.Signatures
	put(copied)
	declared := record("declared", domain.ActionApprove)
	declared.Identity = domain.IdentityDeclared
	put(declared)
	claimed := record("claimed", domain.ActionAssign)
	claimed.Identity, claimed.Actor = domain.IdentitySession, domain.SessionActor(maker.Auth.Credentials()[0].ID)
	put(claimed)

	// The stored signature altered, one byte of it: the record is still
	// listed, its signature shown as not verifying.
	rec, err := w.st.AuditRecord(ctx, acct, "tampered")
	if err != nil {
		t.Fatal(err)
	}
	forged := rec.Signatures[0]
	forged.Signature = flipLast(forged.Signature)
	b, _ := json.Marshal([]domain.DecisionSignature{forged})
	if err := w.db.Table(w.names[schema.Audit]).Update("account_id", acct).Range("action_id", "tampered").
		Set("signatures", string(b)).Run(ctx); err != nil {
		t.Fatal(err)
	}

	listed, _ := w.must(fmt.Sprintf(`{"command": "audit.list", %s, "account_id": %d}`, actor, acct))["audit"].([]any)
	byID := map[string]map[string]any{}
	for _, r := range listed {
		m := r.(map[string]any)
		byID[m["action_id"].(string)] = m
	}
	type sig struct {
		role     string
		operator int64
		cred     string
		verified bool
	}
	for _, tc := range []struct {
		actionID, identity, actor string
		sigs                      []sig
	}{
		{"signed", "passkey", "", []sig{{"maker", maker.ID, credOf(maker), true}, {"second", second.ID, credOf(second), true}}},
		{"tampered", "passkey", "", []sig{{"maker", maker.ID, credOf(maker), false}}},
		{"copied", "passkey", "", []sig{{"maker", maker.ID, credOf(maker), false}}},
		// Declared where the account's chain never accepted declared
		// decisions: judged by the one rule too, and it does not count.
		{"declared", "declared", "", []sig{{passkey.RoleUnsigned, maker.ID, "", false}}},
		{"claimed", "session", "session:" + credOf(maker), nil},
	} {
		t.Run(tc.actionID, func(t *testing.T) {
			r := byID[tc.actionID]
			if r == nil {
				t.Fatalf("audit.list holds no %s: %v", tc.actionID, listed)
			}
			if r["identity"] != tc.identity || (tc.actor != "" && r["actor"] != tc.actor) {
				t.Errorf("identity %v, actor %v; want %s, %q", r["identity"], r["actor"], tc.identity, tc.actor)
			}
			got, _ := r["signatures"].([]any)
			if len(got) != len(tc.sigs) {
				t.Fatalf("signatures %v, want %d", got, len(tc.sigs))
			}
			for i, want := range tc.sigs {
				s := got[i].(map[string]any)
				if s["role"] != want.role || num(s["operator_id"]) != want.operator || s["credential_id"] != want.cred || s["verified"] != want.verified {
					t.Errorf("signature %d = %v, want %+v", i, s, want)
				}
				if problem, _ := s["problem"].(string); want.verified != (problem == "") {
					t.Errorf("signature %d: verified %v with problem %q", i, want.verified, problem)
				}
			}
		})
	}
	// A record that is no decision says nothing of identity.
	for id, r := range byID {
		if !slices.Contains([]string{"signed", "tampered", "copied", "declared", "claimed"}, id) && (r["identity"] != nil || r["signatures"] != nil) {
			t.Errorf("%s (%v) lists identity %v, signatures %v", id, r["action"], r["identity"], r["signatures"])
		}
	}
	// audit.verify finds the same decisions failing: the altered
	// signature, the one whose document names another record, and the
	// declared decision the account did not accept.
	v := w.must(fmt.Sprintf(`{"command": "audit.verify", %s, "account_id": %d, "entity_id": %d}`, actor, acct, signed.EntityID))
	verified := map[string]bool{}
	for _, s := range v["signatures"].([]any) {
		m := s.(map[string]any)
		verified[m["action_id"].(string)] = m["verified"] == true
	}
	if v["signatures_valid"] != false || !verified["signed"] || verified["tampered"] || verified["copied"] || verified["declared"] || len(verified) != 4 {
		t.Errorf("audit.verify signatures: %v %v", v["signatures_valid"], v["signatures"])
	}
}

// flipLast changes the last byte a base64url string encodes.
func flipLast(s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return s + "A"
	}
	b[len(b)-1] ^= 0x01
	return base64.RawURLEncoding.EncodeToString(b)
}
