package domain

import (
	"errors"
	"time"
)

// PendingApproval is a four-eyes decision waiting for its second operator:
// the maker's decision as signed, and the workflow's task token that the
// second operator's answer completes. It lives until the decision is
// applied (the decision's transaction removes it), refused, or its wait
// ends (ExpiresAt).
type PendingApproval struct {
	AccountID int64
	// ActionID names the decision (the execution's name).
	ActionID  string
	ReviewID  int64
	EntityID  int64
	Action    Action
	MakerID   int64
	MakerName string
	Reason    string
	// Document is the decision document the maker signed (or declared),
	// Digest its hex SHA-256: the second operator signs the same digest.
	Document string
	Digest   string
	// Seen is the dossier's ETag the maker decided on: a second operator
	// who finds the dossier moved cannot approve.
	Seen string
	// Identity is how the maker is known (passkey or declared).
	Identity Identity
	// MakerNonce is the nonce of the maker's signing ceremony, which the
	// wait spent (the ceremony taken, the counter moved, in the write that
	// put this): Apply checks the maker's signature against it. Empty for
	// a declared decision.
	MakerNonce   []byte
	TaskToken    string
	ExecutionARN string
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// ErrSignatureUsed: a decision's signature was consumed already (its
// ceremony taken by another application, or ended; its pending approval
// gone) or its passkey's counter moved meanwhile; nothing was written.
var ErrSignatureUsed = errors.New("the signature was used already")
