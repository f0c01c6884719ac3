package domain

// Audited administrator actions (the admin function and the local commands).
const (
	ActionAccountCreate   Action = "account.create"
	ActionAccountUpdate   Action = "account.update"
	ActionKeyCreate       Action = "key.create"
	ActionKeyRevoke       Action = "key.revoke"
	ActionKeyRotate       Action = "key.rotate"
	ActionOperatorCreate  Action = "operator.create"
	ActionOperatorUpdate  Action = "operator.update"
	ActionOperatorDisable Action = "operator.disable"
)

// Actor is who makes an audited change: an operator of the account, or,
// with OperatorID 0, the account's administrator (the admin function, the
// local commands), named by Admin as the command states it.
type Actor struct {
	AccountID  int64
	OperatorID int64
	Admin      string
	// ActionID names the change in the audit trail (one per change: the
	// same id again changes nothing).
	ActionID string
	// RequestID is the Lambda request that made the change, if any.
	RequestID string
	// SessionCredential is the passkey the acting console session was
	// signed in with, if any (see IdentitySession): its credential id's
	// bytes, held as a string so an Actor stays a comparable value.
	SessionCredential string
}

// AdminName is how the audit trail names an administrator.
func (a Actor) AdminName() string {
	if a.Admin != "" {
		return a.Admin
	}
	return "account administrator"
}
