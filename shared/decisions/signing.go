package decisions

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// Signatures checks passkey assertions over decision documents
// (passkey.Service has it). Checking reads and consumes nothing: Apply
// takes each ceremony and moves each counter, conditioned on the value
// read, in the decision's own transaction; a four-eyes maker's signature is
// spent so by Await, in the write that records the wait.
type Signatures interface {
	// CheckSigned checks everything, the ceremony's lifetime and the
	// counter going up included.
	CheckSigned(ctx context.Context, a passkey.Assertion, accountID int64, purpose, digest string) (passkey.Signed, error)
	// CheckSpent checks a four-eyes maker's signature at Apply, against
	// the nonce its pending approval kept when Await spent it.
	CheckSpent(ctx context.Context, a passkey.Assertion, accountID, operatorID int64, nonce []byte, digest string) (passkey.Signed, error)
	// CountsAtApply is passkey's one rule on the record about to be
	// written: its document names it, its signatures are its operators'.
	CountsAtApply(rec domain.AuditRecord, declared bool, signed ...*passkey.Signed) error
}

// DecisionDocument is the document an operator signs: the request as JSON
// (Request's fields in their declared order, empty ones left out), without
// the signature itself. It names the action, the account, the entity, the
// review, the operator, the action id (so a signature applies once), the
// reason, the action's fields and the dossier's ETag seen. The audit
// record keeps it as signed, and counts only when the document names that
// very record (passkey.AccountChain.Counts); passkey.Document reads it.
func DecisionDocument(req Request) []byte {
	req.Signature = nil
	b, err := json.Marshal(req)
	if err != nil {
		panic(err) // a Request holds nothing that cannot be marshalled
	}
	return b
}

// Digest is the hex SHA-256 of the request's decision document: what the
// maker's and the second operator's challenges are bound to.
func Digest(req Request) string {
	return passkey.DocumentDigest(DecisionDocument(req))
}

// signer is who a decision is known to be from, as Validate and Apply
// establish it.
type signer struct {
	identity domain.Identity
	// maker is the maker's checked signature (nil when declared); spent,
	// that Await consumed it already.
	maker *passkey.Signed
	spent bool
}

// identify establishes who decides: a signed request must be signed by the
// operator it names, over this very document, in a ceremony begun for a
// decision (or, spent, the ceremony its pending approval kept the nonce
// of); an unsigned one is accepted only where the account accepts
// declared decisions. A refusal is SignatureRequired and writes nothing.
func (s *Service) identify(ctx context.Context, req Request, st state, spent *domain.PendingApproval) (signer, error) {
	if req.Signature == nil {
		if !st.account.Settings.DeclaredDecisions {
			return signer{}, domain.Errorf(domain.ECodeSignatureRequired,
				"account %d accepts only decisions signed with the operator's passkey (declared_decisions is off): decide in the console", req.AccountID)
		}
		return signer{identity: domain.IdentityDeclared}, nil
	}
	if s.Signatures == nil {
		return signer{}, fmt.Errorf("decision %s: a signed decision arrived but no signature checker is configured", req.ActionID)
	}
	if req.EntityID == 0 {
		// Its record could not count: the document must name the entity
		// the record is filed under (passkey's rule).
		return signer{}, domain.Errorf(domain.ECodeSignatureRequired,
			"a signed decision's document must name its entity (entity_id, the entity of review %d)", req.ReviewID)
	}
	var signed passkey.Signed
	var err error
	if spent != nil {
		signed, err = s.Signatures.CheckSpent(ctx, *req.Signature, req.AccountID, spent.MakerID, spent.MakerNonce, Digest(req))
	} else {
		signed, err = s.Signatures.CheckSigned(ctx, *req.Signature, req.AccountID, passkey.PurposeDecision, Digest(req))
	}
	if err != nil {
		return signer{}, signatureRefused(err, "the decision's signature")
	}
	if signed.OperatorID != req.OperatorID {
		return signer{}, domain.Errorf(domain.ECodeSignatureRequired,
			"the decision names operator %d but was signed by operator %d", req.OperatorID, signed.OperatorID)
	}
	return signer{identity: domain.IdentityPasskey, maker: &signed, spent: spent != nil}, nil
}

// spentBy is the pending approval that spent the maker's signature when
// the decision began to wait (Await), or nil: a decision applied at once,
// declared, or that waited before waits kept the nonce. A pending approval
// of another document under the action id is a refusal.
func (s *Service) spentBy(ctx context.Context, req Request) (*domain.PendingApproval, error) {
	if req.Signature == nil {
		return nil, nil
	}
	p, err := s.Store.PendingApproval(ctx, req.AccountID, req.ActionID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return nil, nil
	case err != nil:
		return nil, err
	case len(p.MakerNonce) == 0:
		return nil, nil
	case p.Digest != Digest(req):
		return nil, domain.Errorf(domain.ECodeSignatureRequired, "decision %s waited for a second operator as another document: sign it again", req.ActionID)
	}
	return &p, nil
}

// secondApprover checks the four-eyes approval: an assertion by another
// operator of the account, with another credential, holding the action's
// permission, over the same decision document. A self-declared approver
// (second_approver_id) is never enough.
func (s *Service) secondApprover(ctx context.Context, req Request, st state, who signer, ap *Approval) (*passkey.Signed, error) {
	switch {
	case ap == nil:
		return nil, domain.Errorf(domain.ECodeSecondApproverRequired, "this account requires a second operator to %s", req.Action)
	case ap.Signature == nil:
		return nil, domain.Errorf(domain.ECodeSignatureRequired,
			"a second approval must be signed with the second operator's passkey in the console; a declared second_approver_id is not accepted")
	case s.Signatures == nil:
		return nil, fmt.Errorf("decision %s: a signed approval arrived but no signature checker is configured", req.ActionID)
	}
	second, err := s.Signatures.CheckSigned(ctx, *ap.Signature, req.AccountID, passkey.PurposeApproval, Digest(req))
	if err != nil {
		return nil, signatureRefused(err, "the second operator's signature")
	}
	if second.OperatorID == req.OperatorID {
		return nil, domain.Errorf(domain.ECodeSecondApproverRequired, "the second approval must come from another operator than the one who decided (operator %d)", req.OperatorID)
	}
	if who.maker != nil && string(who.maker.Passkey.ID) == string(second.Passkey.ID) {
		return nil, domain.Errorf(domain.ECodeSecondApproverRequired, "the second approval was signed with the maker's own passkey")
	}
	op, err := s.Store.Operator(ctx, req.AccountID, second.OperatorID)
	if err != nil {
		return nil, notFound(err, "operator %d (second approver)", second.OperatorID)
	}
	if r, _ := ruleOf(req.Action); !op.Can(r.permission) {
		return nil, domain.Errorf(domain.ECodeSecondApproverRequired, "operator %d (%s) lacks the %s permission to approve", op.ID, op.Name, r.permission)
	}
	return &second, nil
}

// signatureRefused names a refused signature SignatureRequired, keeping a
// fault a fault.
func signatureRefused(err error, what string) error {
	switch domain.ErrorCode(err) {
	case "":
		return err
	case domain.ECodeSignatureRequired:
		return err
	}
	return domain.Errorf(domain.ECodeSignatureRequired, "%s was refused: %s", what, domain.ErrorMessage(err))
}

// sign puts the identity and the signatures into the decision: the audit
// record keeps the document and the assertions (inside the chain's hash),
// and the write consumes each ceremony and moves each counter (a spent
// maker's: takes its pending approval).
func sign(d *domain.Decision, req Request, who signer, second *passkey.Signed) {
	d.Audit.Identity = who.identity
	if who.maker == nil && second == nil {
		return
	}
	d.Audit.DecisionDocument = string(DecisionDocument(req))
	digest := Digest(req)
	for _, p := range []struct {
		role   string
		signed *passkey.Signed
	}{{domain.SignatureMaker, who.maker}, {domain.SignatureSecond, second}} {
		if p.signed == nil {
			continue
		}
		a := p.signed.Assertion
		d.Audit.Signatures = append(d.Audit.Signatures, domain.DecisionSignature{
			Role: p.role, OperatorID: p.signed.OperatorID, CredentialID: a.CredentialID, AuthenticatorData: a.AuthenticatorData,
			ClientDataJSON: a.ClientDataJSON, Signature: a.Signature, UserHandle: a.UserHandle,
			Nonce: base64.RawURLEncoding.EncodeToString(p.signed.Nonce), Digest: digest,
		})
		d.Signed = append(d.Signed, use(*p.signed, p.role == domain.SignatureMaker && who.spent))
	}
}

// use is what applying a checked signature consumes.
func use(s passkey.Signed, spent bool) domain.SignatureUse {
	return domain.SignatureUse{CeremonyHash: s.CeremonyHash, Passkey: s.Passkey, NextCount: s.NextCount, Spent: spent}
}

// counted refuses a decision whose audit record the one rule by which
// records count (passkey.AccountChain.Counts) would not count: Apply
// writes no record its verifiers would not believe. The account's setting
// is as this decision read it, which is the record's time.
func (s *Service) counted(d domain.Decision, st state, who signer, second *passkey.Signed) error {
	declared := st.account.Settings.DeclaredDecisions
	var err error
	if s.Signatures == nil { // declared decisions only: no signature to verify
		_, err = passkey.AtApply(declared).Counts(passkey.Config{}, passkey.RecordLink(d.Audit))
	} else {
		err = s.Signatures.CountsAtApply(d.Audit, declared, who.maker, second)
	}
	if err != nil {
		return signatureRefused(err, "the decision's record")
	}
	return nil
}
