package passkeytest

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

// Flags of authenticator data (WebAuthn §6.1).
const (
	FlagUP byte = 0x01
	FlagUV byte = 0x04
	FlagBE byte = 0x08
	FlagBS byte = 0x10
	flagAT byte = 0x40
)

// COSE: an EC2 key on P-256 for ES256.
const (
	coseKty, coseAlg, coseCrv, coseX, coseY = 1, 3, -1, -2, -3
	coseEC2, coseES256, coseP256            = 2, -7, 1
)

var b64 = base64.RawURLEncoding

func (a *Authenticator) flags() byte {
	var f byte
	for _, x := range []struct {
		on   bool
		flag byte
	}{{a.UP, FlagUP}, {a.UV, FlagUV}, {a.BE, FlagBE}, {a.BS, FlagBS}} {
		if x.on {
			f |= x.flag
		}
	}
	return f
}

// authData is rpIdHash || flags || counter || attested credential data.
func authData(rpID string, flags byte, count uint32, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, count)
	return append(out, attested...)
}

// attested is aaguid || credential id length || credential id || COSE key.
func attested(aaguid [16]byte, id []byte, pub *ecdsa.PublicKey) ([]byte, error) {
	key, err := coseKey(pub)
	if err != nil {
		return nil, err
	}
	out := append(aaguid[:], 0, 0)
	binary.BigEndian.PutUint16(out[16:], uint16(len(id)))
	out = append(out, id...)
	return append(out, key...), nil
}

func coseKey(pub *ecdsa.PublicKey) ([]byte, error) {
	point, err := pub.Bytes() // 0x04 || X || Y
	if err != nil {
		return nil, fmt.Errorf("passkeytest: public key: %w", err)
	}
	return webauthncbor.Marshal(map[int]any{coseKty: coseEC2, coseAlg: coseES256, coseCrv: coseP256, coseX: point[1:33], coseY: point[33:]})
}

// clientData is clientDataJSON as browsers serialise it.
func clientData(typ, challenge, origin string) []byte {
	b, _ := json.Marshal(struct {
		Type        string `json:"type"`
		Challenge   string `json:"challenge"`
		Origin      string `json:"origin"`
		CrossOrigin bool   `json:"crossOrigin"`
	}{typ, challenge, origin, false})
	return b
}

// signed is what an assertion's signature covers.
func signed(authData, clientDataJSON []byte) []byte {
	h := sha256.Sum256(clientDataJSON)
	sum := sha256.Sum256(append(append([]byte{}, authData...), h[:]...))
	return sum[:]
}

// registrationJSON is a browser's RegistrationResponseJSON.
type registrationJSON struct {
	ID                      string          `json:"id"`
	RawID                   string          `json:"rawId"`
	Response                attestationJSON `json:"response"`
	AuthenticatorAttachment string          `json:"authenticatorAttachment"`
	ClientExtensionResults  struct{}        `json:"clientExtensionResults"`
	Type                    string          `json:"type"`
}

type attestationJSON struct {
	ClientDataJSON     string   `json:"clientDataJSON"`
	AuthenticatorData  string   `json:"authenticatorData"`
	Transports         []string `json:"transports"`
	PublicKey          string   `json:"publicKey"`
	PublicKeyAlgorithm int      `json:"publicKeyAlgorithm"`
	AttestationObject  string   `json:"attestationObject"`
}

// authenticationJSON is a browser's AuthenticationResponseJSON.
type authenticationJSON struct {
	ID                      string        `json:"id"`
	RawID                   string        `json:"rawId"`
	Response                assertionJSON `json:"response"`
	AuthenticatorAttachment string        `json:"authenticatorAttachment"`
	ClientExtensionResults  struct{}      `json:"clientExtensionResults"`
	Type                    string        `json:"type"`
}

type assertionJSON struct {
	ClientDataJSON    string  `json:"clientDataJSON"`
	AuthenticatorData string  `json:"authenticatorData"`
	Signature         string  `json:"signature"`
	UserHandle        *string `json:"userHandle"`
}

// descriptorJSON is a PublicKeyCredentialDescriptorJSON.
type descriptorJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}
