package admin

import (
	"context"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// SignatureCheckView is one decision signature as audit.verify checked it.
type SignatureCheckView struct {
	ActionID string `json:"action_id"`
	AuditSignatureView
}

// checkSignatures checks every signed record of links by the one rule a
// record counts by (passkey.AccountChain.Counts), as a regulator would with
// the export alone: the document, read strictly, names the record; each
// signature's digest is the document's and verifies under the public key
// the account's own chain recorded when the passkey was added. A signature
// over a document that names another record is not verified.
func (h *Handler) checkSignatures(ctx context.Context, accountID int64, links []auditchain.Link) ([]SignatureCheckView, error) {
	out := []SignatureCheckView{}
	var acct *passkey.AccountChain
	for _, l := range links {
		if l.Signatures == "" {
			continue
		}
		if acct == nil {
			a, err := passkey.AccountRecords(ctx, h.Store, accountID)
			if err != nil {
				return nil, err
			}
			acct = &a
		}
		checks, err := acct.Counts(h.Passkeys, l)
		if len(checks) == 0 && err != nil {
			// Its signatures are not even readable.
			out = append(out, SignatureCheckView{ActionID: l.ActionID, AuditSignatureView: AuditSignatureView{Problem: domain.ErrorMessage(err)}})
		}
		for _, c := range checks {
			out = append(out, SignatureCheckView{ActionID: l.ActionID, AuditSignatureView: viewSignature(c)})
		}
	}
	return out, nil
}
