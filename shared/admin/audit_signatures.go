package admin

import (
	"context"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// SignatureCheckView is one decision signature as audit.verify checked it.
type SignatureCheckView struct {
	ActionID string `json:"action_id"`
	AuditSignatureView
}

// checkSignatures judges every decision of links, signed or not, by the one
// rule a record counts by (passkey.AccountChain.Judge), as a regulator
// would with the export alone: the document, read strictly, names the
// record; each signature's digest is the document's and verifies under the
// public key the account's own chain recorded when the passkey was added.
// A signature over a document that names another record is not verified;
// an unsigned decision that does not count (declared where the account's
// chain did not accept it, a session's record other than a claim) is one
// unverified check of role passkey.RoleUnsigned.
func (h *Handler) checkSignatures(ctx context.Context, accountID int64, links []auditchain.Link) ([]SignatureCheckView, error) {
	out := []SignatureCheckView{}
	var acct *passkey.AccountChain
	for _, l := range links {
		if !passkey.IsDecision(l) {
			continue
		}
		if acct == nil {
			a, err := passkey.AccountRecords(ctx, h.Store, accountID)
			if err != nil {
				return nil, err
			}
			acct = &a
		}
		for _, c := range acct.Judge(h.Passkeys, l) {
			out = append(out, SignatureCheckView{ActionID: l.ActionID, AuditSignatureView: viewSignature(c)})
		}
	}
	return out, nil
}
