package domain

// Audited actions on operators' passkeys (package passkey).
const (
	// ActionPasskeyAdd: an operator registered a passkey.
	ActionPasskeyAdd Action = "passkey.add"
	// ActionPasskeyRemove: an operator removed one of their passkeys, or an
	// administrator revoked one.
	ActionPasskeyRemove Action = "passkey.remove"
	// ActionPasskeyCounterRegressed: a passkey presented a signature counter
	// that did not go up, the mark of a cloned authenticator or a replay;
	// the use was refused.
	ActionPasskeyCounterRegressed Action = "passkey.sign_count_regressed"
)
