// Package passkeytest is a software authenticator for tests: real ECDSA
// P-256 credentials answering the options JSON package passkey produces
// with the JSON a browser's credential.toJSON() produces, so a test signs
// in, or signs a decision, without a browser. It does what its fields say
// even where a real authenticator would refuse (UV clear when UV is
// required, another origin or RP id), so a test can present what a faulty
// or hostile client would.
package passkeytest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Authenticator and its browser: the origin the browser reports and the RP
// id the authenticator signs for, the flags it sets, and the credentials
// it holds (all discoverable).
type Authenticator struct {
	// Origin is clientDataJSON's origin.
	Origin string
	// RPID is hashed into authenticator data, whatever the options say.
	RPID string
	// UP and UV: the person is present, and verified (New sets both).
	UP, UV bool
	// BE and BS: the credentials may be, and are, synced.
	BE, BS bool
	// NoCounter keeps every signature counter at 0, as synced passkeys
	// do; otherwise each assertion counts one up.
	NoCounter bool
	// AAGUID names the authenticator's model (zero: none told).
	AAGUID [16]byte
	// Rand makes credential ids and signatures: crypto/rand when nil.
	Rand io.Reader

	mu    sync.Mutex
	creds []*credential
}

type credential struct {
	id, userHandle []byte
	key            *ecdsa.PrivateKey
	count          uint32
}

// Credential is what a test may see of a credential held.
type Credential struct {
	ID, UserHandle []byte
	PublicKey      *ecdsa.PublicKey
	SignCount      uint32
}

// New is an authenticator that verifies its person, for origin and rpID.
func New(origin, rpID string) *Authenticator {
	return &Authenticator{Origin: origin, RPID: rpID, UP: true, UV: true}
}

// Credentials lists the credentials held, oldest first.
func (a *Authenticator) Credentials() []Credential {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Credential, 0, len(a.creds))
	for _, c := range a.creds {
		out = append(out, Credential{ID: slices.Clone(c.id), UserHandle: slices.Clone(c.userHandle), PublicKey: &c.key.PublicKey, SignCount: c.count})
	}
	return out
}

// SetCounter sets a credential's signature counter: to make it go back,
// as a cloned authenticator's would.
func (a *Authenticator) SetCounter(credentialID []byte, n uint32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.find(credentialID)
	if c == nil {
		return fmt.Errorf("passkeytest: no credential %x", credentialID)
	}
	c.count = n
	return nil
}

// Clone is another authenticator holding the same keys, with counters of
// its own from here on: a copied passkey, or the same one behind another
// origin or RP id once the test changes the clone's fields.
func (a *Authenticator) Clone() *Authenticator {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := &Authenticator{Origin: a.Origin, RPID: a.RPID, UP: a.UP, UV: a.UV, BE: a.BE, BS: a.BS, NoCounter: a.NoCounter, AAGUID: a.AAGUID, Rand: a.Rand}
	for _, c := range a.creds {
		cc := *c
		b.creds = append(b.creds, &cc)
	}
	return b
}

func (a *Authenticator) find(id []byte) *credential {
	for _, c := range a.creds {
		if bytes.Equal(c.id, id) {
			return c
		}
	}
	return nil
}

func (a *Authenticator) random() io.Reader {
	if a.Rand != nil {
		return a.Rand
	}
	return rand.Reader
}
