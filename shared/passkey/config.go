package passkey

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// Config is the relying party: the domain passkeys are bound to and the
// origins the settings pages are served from.
type Config struct {
	// RPID is the domain ("localhost", or the stage's custom domain). An
	// IP address cannot be one: browsers refuse it.
	RPID          string
	RPDisplayName string
	// Origins are the exact origins ("https://evs.example.com",
	// "http://localhost:3000") whose pages may run a ceremony.
	Origins []string
}

// Validate refuses a relying party no browser would serve: an RP id that
// is not a lowercase domain name, or an origin that is not on it. A
// passkey made under a wrong one would have to be made again once fixed.
func (c Config) Validate() error {
	if err := protocol.ValidateRPID(c.RPID); err != nil {
		return fmt.Errorf("passkey config: RP id %q: %w", c.RPID, err)
	}
	if c.RPID != strings.ToLower(c.RPID) {
		// The RP id is hashed as it is; browsers hash it lowercased.
		return fmt.Errorf("passkey config: RP id %q must be lowercase", c.RPID)
	}
	if strings.TrimSpace(c.RPDisplayName) == "" {
		return errors.New("passkey config: RP display name is required")
	}
	if len(c.Origins) == 0 {
		return errors.New("passkey config: at least one origin is required")
	}
	for _, o := range c.Origins {
		if err := c.checkOrigin(o); err != nil {
			return fmt.Errorf("passkey config: origin %q: %w", o, err)
		}
	}
	return nil
}

// checkOrigin refuses an origin that is not scheme://host[:port] on the RP
// id, or plain http off localhost (browsers run WebAuthn in secure
// contexts only).
func (c Config) checkOrigin(o string) error {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return err
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("must be http or https")
	case u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return errors.New("must be scheme://host[:port] alone")
	}
	host := u.Hostname()
	if host != c.RPID && !strings.HasSuffix(host, "."+c.RPID) {
		return fmt.Errorf("host %q is not on the RP id %q", host, c.RPID)
	}
	if u.Scheme == "http" && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		return errors.New("plain http is for localhost only")
	}
	return nil
}

// relyingParty is go-webauthn over the config, requiring discoverable
// credentials and user verification, and no attestation.
func (c Config) relyingParty() (*webauthn.WebAuthn, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rp, err := webauthn.New(&webauthn.Config{
		RPID:          c.RPID,
		RPDisplayName: c.RPDisplayName,
		RPOrigins:     c.Origins,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: protocol.ResidentKeyRequired(),
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationRequired,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: CeremonyTTL, TimeoutUVD: CeremonyTTL},
			Registration: webauthn.TimeoutConfig{Timeout: CeremonyTTL, TimeoutUVD: CeremonyTTL},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("passkey: relying party: %w", err)
	}
	return rp, nil
}
