package admin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

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
// would with the export alone: the public key is the one the account's own
// chain recorded when the passkey was added (so a revoked passkey's
// signatures still check, and a key swapped in the passkeys' items would
// not be believed); the challenge signed must be the one bound to the
// document's digest; the digest must be the recorded document's.
func (h *Handler) checkSignatures(ctx context.Context, accountID int64, links []auditchain.Link) ([]SignatureCheckView, error) {
	out := []SignatureCheckView{}
	var keys map[string][]byte
	for _, l := range links {
		if l.Signatures == "" {
			continue
		}
		var sigs []domain.DecisionSignature
		if err := json.Unmarshal([]byte(l.Signatures), &sigs); err != nil {
			out = append(out, SignatureCheckView{ActionID: l.ActionID, Problem: "its signatures are not readable: " + err.Error()})
			continue
		}
		if keys == nil {
			var err error
			if keys, err = h.publicKeys(ctx, accountID); err != nil {
				return nil, err
			}
		}
		for _, s := range sigs {
			v := SignatureCheckView{ActionID: l.ActionID, Role: s.Role, OperatorID: s.OperatorID, CredentialID: s.CredentialID}
			if err := h.checkSignature(keys, l, s); err != nil {
				v.Problem = domain.ErrorMessage(err)
			} else {
				v.Verified = true
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func (h *Handler) checkSignature(keys map[string][]byte, l auditchain.Link, s domain.DecisionSignature) error {
	if s.Digest != passkey.DocumentDigest([]byte(l.DecisionDocument)) {
		return fmt.Errorf("the signed digest is not the recorded document's")
	}
	key, ok := keys[keyOf(s.OperatorID, s.CredentialID)]
	if !ok {
		return fmt.Errorf("no passkey.add record of operator %d holds credential %s", s.OperatorID, s.CredentialID)
	}
	nonce, err := base64.RawURLEncoding.DecodeString(s.Nonce)
	if err != nil {
		return fmt.Errorf("the nonce is not base64url")
	}
	a := passkey.Assertion{CredentialID: s.CredentialID, AuthenticatorData: s.AuthenticatorData, ClientDataJSON: s.ClientDataJSON,
		Signature: s.Signature, UserHandle: s.UserHandle}
	if acct, op, ok := passkey.ParseUserHandleString(s.UserHandle); !ok || acct != l.AccountID || op != s.OperatorID {
		return fmt.Errorf("the user handle does not name operator %d of account %d", s.OperatorID, l.AccountID)
	}
	return passkey.VerifyRecord(key, h.Passkeys, a, nonce, s.Digest)
}

// publicKeys are the public keys the account's own chain recorded, by
// operator and credential.
func (h *Handler) publicKeys(ctx context.Context, accountID int64) (map[string][]byte, error) {
	ch, err := h.Store.AuditChain(ctx, accountID, 0)
	if err != nil {
		return nil, err
	}
	keys := map[string][]byte{}
	for _, l := range ch.Records {
		if l.Action != string(domain.ActionPasskeyAdd) {
			continue
		}
		var after struct {
			OperatorID   int64  `json:"operator_id"`
			CredentialID string `json:"credential_id"`
			PublicKey    string `json:"public_key"`
		}
		if json.Unmarshal([]byte(l.After), &after) != nil || after.PublicKey == "" {
			continue
		}
		if key, err := base64.RawURLEncoding.DecodeString(after.PublicKey); err == nil {
			keys[keyOf(after.OperatorID, after.CredentialID)] = key
		}
	}
	return keys, nil
}

func keyOf(operatorID int64, credentialID string) string {
	return fmt.Sprintf("%d/%s", operatorID, credentialID)
}
