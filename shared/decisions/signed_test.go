package decisions_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// signedWorld is the decisions world where every decision must be signed
// (declared_decisions off) and escalating to AML takes four eyes; its
// operators hold passkeys on software authenticators.
type signedWorld struct {
	*world
	keys                        *passkey.Service
	decider, second, nobody     *passkeytest.Operator
	disabled, outsider, sibling *passkeytest.Operator
}

func newSignedWorld(t *testing.T) *signedWorld {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t)
	if err := w.st.PutAccountSettings(ctx, w.account, domain.AccountSettings{FourEyes: []string{string(domain.ActionEscalateToAML)}}); err != nil {
		t.Fatal(err)
	}
	sw := &signedWorld{world: w, keys: &passkey.Service{Store: w.st, Clock: domain.SystemClock,
		Config: passkey.Config{RPID: "localhost", RPDisplayName: "EVS", Origins: []string{"http://localhost:3000"}}}}
	w.svc.Signatures = sw.keys
	enrol := func(accountID, id int64) *passkeytest.Operator { return sw.enrol(t, accountID, id) }
	sw.decider, sw.second, sw.nobody = enrol(w.account, w.decider), enrol(w.account, w.second), enrol(w.account, w.nobody)
	sw.sibling = enrol(w.account, w.risk) // another operator, for another-operator's-ceremony cases

	// An operator of another account, and one who is disabled after enrolling.
	other, err := w.st.CreateAccount(ctx, "Elsewhere", t0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.st.CreateOperator(ctx, other.ID, "Olga Outsider", []string{domain.PermReviewDecide}, t0)
	if err != nil {
		t.Fatal(err)
	}
	sw.outsider = enrol(other.ID, out.ID)
	gone, err := w.st.CreateOperator(ctx, w.account, "Dora Disabled", []string{domain.PermReviewDecide}, t0)
	if err != nil {
		t.Fatal(err)
	}
	sw.disabled = enrol(w.account, gone.ID)
	gone.DisabledAt = &t0
	if err := w.st.UpdateOperator(ctx, gone, domain.AuditRecord{AccountID: w.account, ActionID: "disable-dora", Action: domain.ActionOperatorUpdate, At: t0}); err != nil {
		t.Fatal(err)
	}
	return sw
}

// enrol gives operator id of the account a passkey.
func (sw *signedWorld) enrol(t *testing.T, accountID, id int64) *passkeytest.Operator {
	t.Helper()
	ctx := context.Background()
	op, err := sw.st.Operator(ctx, accountID, id)
	if err != nil {
		t.Fatal(err)
	}
	o, err := passkeytest.Enrol(ctx, sw.keys, op)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// signed is req with o's assertion over its document.
func signed(t *testing.T, o *passkeytest.Operator, purpose string, req decisions.Request) decisions.Request {
	t.Helper()
	a, err := o.Sign(context.Background(), purpose, decisions.Digest(req))
	if err != nil {
		t.Fatal(err)
	}
	req.Signature = &a
	return req
}

// An unsigned decision where the account does not accept declared ones,
// and every signature that does not prove the named operator decided this
// very document, is SignatureRequired and writes nothing.
func TestDecisionsMustBeSignedByTheirOperator(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	_, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	start := func() decisions.Request { return w.req(domain.ActionStart, r.ID, w.world.decider) }

	noUV := func() decisions.Request {
		w.decider.Auth.UV = false
		defer func() { w.decider.Auth.UV = true }()
		return signed(t, w.decider, passkey.PurposeDecision, start())
	}
	otherDocument := func() decisions.Request {
		req := start()
		other := req
		other.ActionID += "-other"
		req.Signature = signed(t, w.decider, passkey.PurposeDecision, other).Signature
		return req
	}
	for _, tc := range []struct {
		name string
		req  func() decisions.Request
	}{
		{"unsigned", start},
		{"signed by another operator than the one named", func() decisions.Request {
			return signed(t, w.sibling, passkey.PurposeDecision, start())
		}},
		{"signature over another document", otherDocument},
		{"signature without user verification", noUV},
		{"signature made for an approval", func() decisions.Request { return signed(t, w.decider, passkey.PurposeApproval, start()) }},
		{"signature by a disabled operator", func() decisions.Request {
			req := start()
			req.OperatorID = w.disabled.ID
			return signed(t, w.disabled, passkey.PurposeDecision, req)
		}},
		{"signature by an operator of another account", func() decisions.Request {
			req := start()
			req.OperatorID = w.outsider.ID
			return signed(t, w.outsider, passkey.PurposeDecision, req)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req()
			if _, err := w.svc.Validate(ctx, req); domain.FailureName(err) != domain.FailSignatureRequired && domain.FailureName(err) != domain.FailNotFound {
				t.Errorf("validate: %v, want SignatureRequired", err)
			}
			if _, _, err := w.svc.Apply(ctx, req, nil); domain.FailureName(err) != domain.FailSignatureRequired && domain.FailureName(err) != domain.FailNotFound {
				t.Errorf("apply: %v, want SignatureRequired", err)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, req.ActionID); err == nil {
				t.Errorf("a refused decision wrote its audit record")
			}
		})
	}

	// Signed by the operator it names: applied, recorded as signed, the
	// signature verifiable from the record and the stored public key alone.
	req := signed(t, w.decider, passkey.PurposeDecision, start())
	got, _, err := w.svc.Apply(ctx, req, nil)
	if err != nil || got.Status != domain.ReviewInProgress {
		t.Fatalf("signed start: %+v, %v", got, err)
	}
	rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if err != nil || rec.Identity != domain.IdentityPasskey || len(rec.Signatures) != 1 || rec.DecisionDocument != string(decisions.DecisionDocument(req)) {
		t.Fatalf("audit record: identity %q, %d signatures, document %q (%v)", rec.Identity, len(rec.Signatures), rec.DecisionDocument, err)
	}
	verifyRecorded(t, w, rec)

	// The same signed document again is the same action (a replay changes
	// nothing); its ceremony is gone, so a copy under another action id
	// cannot be signed by it.
	if again, _, err := w.svc.Apply(ctx, req, nil); err != nil || again.Version != got.Version {
		t.Errorf("the same signed decision again: %+v, %v; want the review unchanged", again, err)
	}
	reuse := req
	reuse.ActionID += "-copy"
	if _, _, err := w.svc.Apply(ctx, reuse, nil); domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("a used signature on a copy of its decision: %v", err)
	}

	// A counter that goes back below the one the applied decision stored
	// (a cloned authenticator) is refused when the decision is submitted
	// (Validate, the workflow's first task), and the refusal audited.
	_, r2 := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	for _, c := range w.decider.Auth.Credentials() {
		if err := w.decider.Auth.SetCounter(c.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	back := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionStart, r2.ID, w.world.decider))
	if _, err := w.svc.Validate(ctx, back); domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("a signature whose counter went back: %v", err)
	}
	trail, err := w.st.AccountAudit(ctx, w.account, 100)
	if err != nil {
		t.Fatal(err)
	}
	regressions := 0
	for _, r := range trail {
		if r.Action == domain.ActionPasskeyCounterRegressed {
			regressions++
		}
	}
	if regressions != 1 {
		t.Errorf("%d counter regressions on the record, want 1", regressions)
	}
}

// verifyRecorded checks each of the record's signatures as a regulator
// would: with the operator's stored public key, against the document's
// digest and the challenge bound to it.
func verifyRecorded(t *testing.T, w *signedWorld, rec domain.AuditRecord) {
	t.Helper()
	for _, s := range rec.Signatures {
		id, _ := base64.RawURLEncoding.DecodeString(s.CredentialID)
		pk, err := w.st.Passkey(context.Background(), rec.AccountID, s.OperatorID, id)
		if err != nil {
			t.Fatalf("passkey of %s signature: %v", s.Role, err)
		}
		nonce, _ := base64.RawURLEncoding.DecodeString(s.Nonce)
		a := passkey.Assertion{CredentialID: s.CredentialID, AuthenticatorData: s.AuthenticatorData, ClientDataJSON: s.ClientDataJSON,
			Signature: s.Signature, UserHandle: s.UserHandle}
		if err := passkey.VerifyRecord(pk.PublicKey, w.keys.Config, a, nonce, s.Digest); err != nil {
			t.Errorf("%s signature does not verify: %v", s.Role, err)
		}
		if s.Digest != decisionsDigestOf(rec.DecisionDocument) {
			t.Errorf("%s signature's digest is not the document's", s.Role)
		}
	}
	counts(t, w, rec.EntityID, rec.ActionID)
}

// counts checks, by the one rule its verifiers apply, that the record of
// actionID in the entity's chain counts, judged by the account's chain.
func counts(t *testing.T, w *signedWorld, entityID int64, actionID string) {
	t.Helper()
	ctx := context.Background()
	acct, err := passkey.AccountRecords(ctx, w.st, w.account)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := w.st.AuditChain(ctx, w.account, entityID)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ch.Records {
		if l.ActionID != actionID {
			continue
		}
		if _, err := acct.Counts(w.keys.Config, l); err != nil {
			t.Errorf("the record of %s does not count: %v", actionID, err)
		}
		return
	}
	t.Errorf("no record of %s in entity %d's chain", actionID, entityID)
}

// Four eyes: the second approval is another operator's signed assertion
// over the same document; every other answer is refused and writes
// nothing, whatever the first operator put in the request.
func TestFourEyesBetweenTwoSignedOperators(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	_, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionEscalateToAML, r.ID, w.world.decider))
	v, err := w.svc.Validate(ctx, req)
	if err != nil || !v.RequiresSecondApproval {
		t.Fatalf("validate = %+v, %v", v, err)
	}
	digest := decisions.Digest(req)
	approval := func(o *passkeytest.Operator, purpose, digest string) *decisions.Approval {
		t.Helper()
		a, err := o.Sign(ctx, purpose, digest)
		if err != nil {
			t.Fatal(err)
		}
		return &decisions.Approval{Signature: &a}
	}
	makersOtherKey, err := passkeytest.Enrol(ctx, w.keys, w.decider.Operator)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		approval func() *decisions.Approval
		failure  string
	}{
		{"no answer", func() *decisions.Approval { return nil }, domain.FailSecondApprover},
		{"a declared second approver", func() *decisions.Approval { return &decisions.Approval{SecondApproverID: w.second.ID} }, domain.FailSignatureRequired},
		{"the maker, with another passkey", func() *decisions.Approval { return approval(makersOtherKey, passkey.PurposeApproval, digest) }, domain.FailSecondApprover},
		{"an operator without the permission", func() *decisions.Approval { return approval(w.nobody, passkey.PurposeApproval, digest) }, domain.FailSecondApprover},
		{"an operator of another account", func() *decisions.Approval { return approval(w.outsider, passkey.PurposeApproval, digest) }, domain.FailSignatureRequired},
		{"a disabled operator", func() *decisions.Approval { return approval(w.disabled, passkey.PurposeApproval, digest) }, domain.FailSignatureRequired},
		{"a signature over another decision", func() *decisions.Approval {
			other := req
			other.Reason = "something else"
			return approval(w.second, passkey.PurposeApproval, decisions.Digest(other))
		}, domain.FailSignatureRequired},
		{"a decision ceremony, not an approval", func() *decisions.Approval { return approval(w.second, passkey.PurposeDecision, digest) }, domain.FailSignatureRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := w.svc.Apply(ctx, req, tc.approval()); domain.FailureName(err) != tc.failure {
				t.Errorf("apply: %v, want %s", err, tc.failure)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, req.ActionID); err == nil {
				t.Fatal("a refused approval wrote the decision")
			}
		})
	}

	got, _, err := w.svc.Apply(ctx, req, approval(w.second, passkey.PurposeApproval, digest))
	if err != nil || got.Escalation == nil || *got.Escalation != domain.EscalationAML {
		t.Fatalf("approved by the second operator: %+v, %v", got, err)
	}
	rec, _ := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if rec.SecondApproverID == nil || *rec.SecondApproverID != w.second.ID || len(rec.Signatures) != 2 ||
		rec.Signatures[0].Role != domain.SignatureMaker || rec.Signatures[1].Role != domain.SignatureSecond || rec.Signatures[1].OperatorID != w.second.ID {
		t.Errorf("audit record: second approver %v, signatures %+v", rec.SecondApproverID, rec.Signatures)
	}
	verifyRecorded(t, w, rec)
}

// Four eyes required by the time Apply runs (the account's setting changed
// after Validate) needs the signed approval, whatever Validate said.
func TestFourEyesRequiredAfterValidate(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	_, r := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	req := signed(t, w.decider, passkey.PurposeDecision, w.req(domain.ActionEscalate, r.ID, w.world.decider))
	if v, err := w.svc.Validate(ctx, req); err != nil || v.RequiresSecondApproval {
		t.Fatalf("validate = %+v, %v", v, err)
	}
	if err := w.st.PutAccountSettings(ctx, w.account, domain.AccountSettings{FourEyes: []string{string(domain.ActionEscalate)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.svc.Apply(ctx, req, &decisions.Approval{SecondApproverID: w.second.ID}); domain.FailureName(err) != domain.FailSignatureRequired {
		t.Errorf("a declared approver once four eyes became required: %v", err)
	}
}

func decisionsDigestOf(document string) string {
	sum := sha256.Sum256([]byte(document))
	return hex.EncodeToString(sum[:])
}
