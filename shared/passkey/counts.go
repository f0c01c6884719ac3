package passkey

import (
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
)

// Counts is the one rule by which an audit record counts as the decision
// it records; nil when it does, else a refusal (domain.ECodeSignatureRequired)
// saying why, with each signature's check (each failed when the record
// does not count). The decision function applies it to the record it is
// about to write, and every reader of the trail — audit.verify and its
// signature report, the console, audit-export's closures and renewals,
// the verify package — to the records it reads: one rule, so that what
// the service writes is what its verifiers believe.
//
// It lives here, beside the chain's signature check (VerifyLinkSignature),
// because a signature proves only its document: what makes the document
// prove its record is this package's to say, and a verifier with the
// records alone needs nothing else.
//
// A signed record counts when its decision document, read strictly
// (ReadDocument), names exactly the record's action, action id, account,
// entity, review, operator, reason, dossier seen and the action's own
// fields; its signatures are one maker's, the record's operator, and for
// a four-eyes decision one second operator's, the record's second
// approver (who signs the same document, chosen after it was written);
// and each signature's digest is the document's SHA-256 and verifies
// against the passkey a.Keys recorded. An unsigned record counts only
// where the account accepted declared decisions at the record's time
// (a.Declared), or as a queue claim known by its session
// (domain.ClaimAction: assign, start, and the older review.claim), the
// one thing a session does unsigned. So a signed closure
// (end_relationship) counts only when its document is an end_relationship
// of that same entity, in that account; an unsigned one only where
// declared decisions were accepted at its time.
func (a AccountChain) Counts(cfg Config, l auditchain.Link) ([]Check, error) {
	sigs, err := Signatures(l)
	if err != nil {
		return nil, refuse("The record's signatures are not one reading: %s.", err)
	}
	if len(sigs) == 0 {
		switch {
		case l.DecisionDocument != "":
			return nil, refuse("The record keeps a decision document and no signature.")
		case l.Identity == string(domain.IdentitySession):
			// Known by the session's passkey, whatever the account's
			// setting: a queue claim, and only that, is taken unsigned.
			if !domain.ClaimAction(domain.Action(l.Action)) {
				return nil, refuse("A session's record of %s: in a session an operator only claims a review (assign, start); a decision is signed.", l.Action)
			}
			return nil, nil
		case !a.Declared.At(l.At):
			return nil, refuse("It is not signed, and the account did not accept declared decisions at %s, as its own chain recorded its settings.", l.At)
		}
		return nil, nil
	}
	checks := make([]Check, 0, len(sigs))
	for _, s := range sigs {
		checks = append(checks, a.Keys.CheckLink(cfg, l, s))
	}
	why := unbound(l, sigs)
	for _, c := range checks {
		if why == "" && !c.Verified {
			why = fmt.Sprintf("Operator %d's signature: %s", c.OperatorID, c.Problem)
		}
	}
	if why == "" {
		return checks, nil
	}
	for i := range checks {
		if checks[i].Verified {
			checks[i].Verified, checks[i].Problem = false, why
		}
	}
	return checks, refuse("%s", why)
}

// unbound says why a signed record's document and signers do not name the
// record ("" when they do).
func unbound(l auditchain.Link, sigs []domain.DecisionSignature) string {
	d, err := ReadDocument(l.DecisionDocument)
	if err != nil {
		return fmt.Sprintf("The decision document is not read: %s.", err)
	}
	diffs := append(d.differences(l), signerDifferences(l, sigs)...)
	if l.Identity != string(domain.IdentityPasskey) {
		diffs = append(diffs, fmt.Sprintf("a signed record of identity %q", l.Identity))
	}
	if len(diffs) == 0 {
		return ""
	}
	return "The decision document does not name its record: " + strings.Join(diffs, "; ") + "."
}

// CountsAtApply is Counts on the record the decision function is about to
// write, judged as AtApply says: a record the rule would not count is
// never written.
func (s *Service) CountsAtApply(rec domain.AuditRecord, declared bool, signed ...*Signed) error {
	_, err := AtApply(declared, signed...).Counts(s.Config, RecordLink(rec))
	return err
}
