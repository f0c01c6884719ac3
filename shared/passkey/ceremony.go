package passkey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// challengeLen is the bytes of a register or login challenge, and of a
// signing nonce: well past go-webauthn's minimum of 16.
const challengeLen = 32

// random reads n bytes from the service's source.
func (s *Service) random(n int) ([]byte, error) {
	r := s.Rand
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("passkey: random: %w", err)
	}
	return b, nil
}

// ceremonyHash is the key a ceremony is kept under: the lowercase hex
// SHA-256 of its challenge, so the store never holds a live challenge.
func ceremonyHash(challenge []byte) string {
	sum := sha256.Sum256(challenge)
	return hex.EncodeToString(sum[:])
}

// challengeOf decodes the challenge as clientDataJSON carries it
// (base64url without padding).
func challengeOf(encoded string) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(encoded, "="))
	return b, err == nil && len(b) > 0
}

// keep stores a ceremony begun for the challenge, ending ttl from now.
func (s *Service) keep(ctx context.Context, c domain.Ceremony, challenge []byte, ttl time.Duration) error {
	now := s.Clock.Now()
	c.Hash, c.CreatedAt, c.ExpiresAt = ceremonyHash(challenge), now, now.Add(ttl)
	if err := s.Store.PutCeremony(ctx, c); err != nil {
		return fmt.Errorf("passkey: begin %s: %w", c.Purpose, err)
	}
	return nil
}

// take takes, once, the ceremony of purpose whose challenge clientDataJSON
// names. A ceremony finished already, expired, of another purpose or never
// begun is refused alike: which one it was is no business of the caller's.
func (s *Service) take(ctx context.Context, encodedChallenge, purpose string) (domain.Ceremony, error) {
	challenge, ok := challengeOf(encodedChallenge)
	if !ok {
		return domain.Ceremony{}, domain.Errorf(domain.ECodeBadRequest, "The response carries no challenge.")
	}
	c, err := s.Store.TakeCeremony(ctx, ceremonyHash(challenge), purpose, s.Clock.Now())
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return c, domain.Errorf(domain.ECodeForbidden, "This passkey ceremony was finished already, expired, or never begun: begin again.")
	case err != nil:
		return c, fmt.Errorf("passkey: finish %s: %w", purpose, err)
	}
	return c, nil
}
