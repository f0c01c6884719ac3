package passkey

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// ChainKeys are the public keys an account's own audit chain recorded when
// its operators added passkeys (passkey.add), by operator and credential:
// the keys a decision's signatures are checked with, as a regulator would
// with the records alone (a revoked passkey's signatures still check, and
// a key swapped in the passkeys' items is not believed).
type ChainKeys map[string][]byte

// KeysOf reads the passkey.add records among links, strictly: a record
// whose document is not one reading (a key given twice, invalid JSON)
// records no key, as DeclaredOf reads the account's settings.
func KeysOf(links []auditchain.Link) ChainKeys {
	keys := ChainKeys{}
	for _, l := range links {
		if l.Action != string(domain.ActionPasskeyAdd) {
			continue
		}
		var after struct {
			OperatorID   int64  `json:"operator_id"`
			CredentialID string `json:"credential_id"`
			PublicKey    string `json:"public_key"`
		}
		if strictjson.Check([]byte(l.After)) != nil || json.Unmarshal([]byte(l.After), &after) != nil || after.PublicKey == "" {
			continue
		}
		if key, err := base64.RawURLEncoding.DecodeString(after.PublicKey); err == nil {
			keys[keyOf(after.OperatorID, after.CredentialID)] = key
		}
	}
	return keys
}

func keyOf(operatorID int64, credentialID string) string {
	return fmt.Sprintf("%d/%s", operatorID, credentialID)
}

// Signatures reads the signatures an audit record carries (none: nil).
func Signatures(l auditchain.Link) ([]domain.DecisionSignature, error) {
	if l.Signatures == "" {
		return nil, nil
	}
	var sigs []domain.DecisionSignature
	if err := strictjson.Decode([]byte(l.Signatures), &sigs); err != nil {
		return nil, fmt.Errorf("its signatures are not readable: %w", err)
	}
	return sigs, nil
}

// VerifyLinkSignature checks one signature of an audit record: the digest
// signed is the recorded document's, the key the one the account's chain
// recorded for the operator's credential, the user handle names that
// operator of the record's account, and the assertion verifies
// (VerifyRecord). Refusals are domain.ECodeSignatureRequired.
func (k ChainKeys) VerifyLinkSignature(cfg Config, l auditchain.Link, s domain.DecisionSignature) error {
	if s.Digest != DocumentDigest([]byte(l.DecisionDocument)) {
		return refuse("The signed digest is not the recorded document's.")
	}
	key, ok := k[keyOf(s.OperatorID, s.CredentialID)]
	if !ok {
		return refuse("No passkey.add record of operator %d holds credential %s.", s.OperatorID, s.CredentialID)
	}
	nonce, err := base64.RawURLEncoding.DecodeString(s.Nonce)
	if err != nil {
		return refuse("The nonce is not base64url.")
	}
	if acct, op, ok := ParseUserHandleString(s.UserHandle); !ok || acct != l.AccountID || op != s.OperatorID {
		return refuse("The user handle does not name operator %d of account %d.", s.OperatorID, l.AccountID)
	}
	a := Assertion{CredentialID: s.CredentialID, AuthenticatorData: s.AuthenticatorData, ClientDataJSON: s.ClientDataJSON,
		Signature: s.Signature, UserHandle: s.UserHandle}
	return VerifyRecord(key, cfg, a, nonce, s.Digest)
}

// Check is one signature of an audit record as checked: Problem says why
// one does not verify.
type Check struct {
	Role         string
	OperatorID   int64
	CredentialID string
	Verified     bool
	Problem      string
}

// CheckLink is VerifyLinkSignature's answer as a Check.
func (k ChainKeys) CheckLink(cfg Config, l auditchain.Link, s domain.DecisionSignature) Check {
	c := Check{Role: s.Role, OperatorID: s.OperatorID, CredentialID: s.CredentialID}
	if err := k.VerifyLinkSignature(cfg, l, s); err != nil {
		c.Problem = domain.ErrorMessage(err)
	} else {
		c.Verified = true
	}
	return c
}
