package domain

import (
	"encoding/base64"
	"strings"
)

// Identity says how a decision's operator is known.
type Identity string

const (
	// IdentityPasskey: the operator signed the decision document with one
	// of their passkeys, user verification included.
	IdentityPasskey Identity = "passkey"
	// IdentityDeclared: whoever started the decision named the operator;
	// only the execution's ARN (CloudTrail's StartExecution event) says
	// which AWS principal that was. Accepted only where the account's
	// DeclaredDecisions setting allows it.
	IdentityDeclared Identity = "declared"
	// IdentitySession: the operator acted in a console session they
	// signed in to with a passkey (user verification included), without
	// signing the action itself: the record's Actor names the session's
	// passkey (SessionActor). A queue claim is known so.
	IdentitySession Identity = "session"
)

// SessionCredentialOf is the passkey a session's record names (its Actor
// as SessionActor wrote it), or "" for a record not known by a session.
func SessionCredentialOf(a AuditRecord) string {
	if a.Identity != IdentitySession {
		return ""
	}
	return strings.TrimPrefix(a.Actor, sessionPrefix)
}

const sessionPrefix = "session:"

// SessionActor is the Actor of an action taken in a session signed in with
// the passkey credentialID: "session:" and the credential id, base64url.
func SessionActor(credentialID []byte) string {
	return sessionPrefix + base64.RawURLEncoding.EncodeToString(credentialID)
}

// Roles of a decision's signatures.
const (
	SignatureMaker  = "maker"  // the operator who decided
	SignatureSecond = "second" // the second operator of a four-eyes decision
)

// DecisionSignature is a WebAuthn assertion over a decision document, as
// the audit record keeps it: everything a verifier needs besides the
// operator's public key. Binary fields are base64url without padding.
// The challenge the authenticator signed is SHA-256("evs-decision-v1\n" ||
// nonce || "\n" || digest), so it is bound to the document by the record
// alone.
type DecisionSignature struct {
	Role              string `json:"role"`
	OperatorID        int64  `json:"operator_id"`
	CredentialID      string `json:"credential_id"`
	AuthenticatorData string `json:"authenticator_data"`
	ClientDataJSON    string `json:"client_data_json"`
	Signature         string `json:"signature"`
	UserHandle        string `json:"user_handle"`
	Nonce             string `json:"nonce"`
	// Digest is the hex SHA-256 of the decision document signed.
	Digest string `json:"digest"`
}

// SignatureUse is what a signature's use consumes, in the transaction of
// the write it signs: the ceremony whose challenge was signed (taken once,
// still within its lifetime) and the passkey's signature counter, moved
// to NextCount on the condition that it still holds the value read
// (Passkey.SignCount), so of two signatures carrying the same counter
// only one is ever used.
type SignatureUse struct {
	CeremonyHash string
	Passkey      Passkey
	NextCount    uint32
	// Spent: a four-eyes maker's signature, consumed (ceremony and counter)
	// when the decision began to wait; the decision takes the pending
	// approval that keeps it instead (PendingApproval.MakerNonce).
	Spent bool
}
