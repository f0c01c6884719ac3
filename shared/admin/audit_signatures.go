package admin

import (
	"context"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// SignatureCheckView is one decision signature as audit.verify checked it.
type SignatureCheckView struct {
	ActionID     string `json:"action_id"`
	Role         string `json:"role"`
	OperatorID   int64  `json:"operator_id"`
	CredentialID string `json:"credential_id"`
	Verified     bool   `json:"verified"`
	Problem      string `json:"problem,omitempty"`
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
			out = append(out, SignatureCheckView{ActionID: l.ActionID, Problem: err.Error()})
			continue
		}
		if len(sigs) > 0 && keys == nil {
			ch, err := h.Store.AuditChain(ctx, accountID, 0)
			if err != nil {
				return nil, err
			}
			keys = passkey.KeysOf(ch.Records)
		}
		for _, s := range sigs {
			v := SignatureCheckView{ActionID: l.ActionID, Role: s.Role, OperatorID: s.OperatorID, CredentialID: s.CredentialID}
			if err := keys.VerifyLinkSignature(h.Passkeys, l, s); err != nil {
				v.Problem = domain.ErrorMessage(err)
			} else {
				v.Verified = true
			}
			out = append(out, v)
		}
	}
	return out, nil
}
