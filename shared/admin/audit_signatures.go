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

// checkSignatures checks every signature the links carry, as a regulator
// would with the export alone (passkey.ChainKeys): the public key is the
// one the account's own chain recorded when the passkey was added; the
// challenge signed must be the one bound to the document's digest; the
// digest must be the recorded document's.
func (h *Handler) checkSignatures(ctx context.Context, accountID int64, links []auditchain.Link) ([]SignatureCheckView, error) {
	out := []SignatureCheckView{}
	var keys passkey.ChainKeys
	for _, l := range links {
		sigs, err := passkey.Signatures(l)
		if err != nil {
			out = append(out, SignatureCheckView{ActionID: l.ActionID, AuditSignatureView: AuditSignatureView{Problem: err.Error()}})
			continue
		}
		if len(sigs) > 0 && keys == nil {
			if keys, err = passkey.AccountKeys(ctx, h.Store, accountID); err != nil {
				return nil, err
			}
		}
		for _, s := range sigs {
			c := keys.CheckLink(h.Passkeys, l, s)
			out = append(out, SignatureCheckView{ActionID: l.ActionID, AuditSignatureView: viewSignature(c)})
		}
	}
	return out, nil
}
