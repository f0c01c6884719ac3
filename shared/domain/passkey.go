package domain

import "time"

// Passkey is a WebAuthn credential an operator registered: what verifying
// its assertions needs (the public key, the signature counter) and what an
// operator or administrator sees of it (a name, the authenticator's model,
// where it syncs, when it was made and last used).
type Passkey struct {
	AccountID  int64
	OperatorID int64
	// ID is the credential id the authenticator chose (raw bytes).
	ID []byte
	// PublicKey is the COSE-encoded public key.
	PublicKey []byte
	// SignCount is the authenticator's signature counter as last seen (0
	// for authenticators that keep none, as synced passkeys do).
	SignCount uint32
	AAGUID    []byte
	// Transports are the authenticator's ("internal", "hybrid", "usb" …).
	Transports []string
	// BackupEligible and BackupState: whether the credential may be, and
	// is, synced to other devices.
	BackupEligible bool
	BackupState    bool
	Name           string
	CreatedAt      time.Time
	LastUsedAt     *time.Time
}

// Ceremony is a WebAuthn ceremony begun and not yet finished: the
// challenge's state, kept under the challenge's SHA-256 until it is taken
// once or expires. Purpose says what it may finish ("register", "login",
// "decision"); Digest binds a decision ceremony to the decision document
// it signs.
type Ceremony struct {
	Hash       string // lowercase hex SHA-256 of the challenge
	Purpose    string
	AccountID  int64
	OperatorID int64
	// Session is the WebAuthn library's session data, opaque here.
	Session   []byte
	Digest    string
	CreatedAt time.Time
	ExpiresAt time.Time
}
