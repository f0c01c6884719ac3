package store

import (
	"context"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// skRegistrationPrefix marks the item that reserves a registration number in
// a country for one entity of the account: the uniqueness guard. It is also
// how the registration_number filter finds entities, strongly consistent:
// "REG#<number>#<country>", so one number's guards in every country are
// one key range.
const skRegistrationPrefix = "REG#"

func registrationGuardSK(country, number string) string {
	return skRegistrationPrefix + number + "#" + country
}

// guardCountry is the country of a guard's sort key, and whether it guards
// exactly number (a number may itself hold '#').
func guardCountry(sk, number string) (string, bool) {
	rest, ok := strings.CutPrefix(sk, skRegistrationPrefix+number+"#")
	if !ok || strings.Contains(rest, "#") {
		return "", false
	}
	return rest, true
}

type registrationGuardItem struct {
	AccountID int64  `dynamo:"account_id,hash"`
	SK        string `dynamo:"sk,range"`
	EntityID  int64  `dynamo:"entity_id"`
	// A create's claim before its entity exists (ClaimRegistration).
	Claim      string `dynamo:"claim,omitempty"`
	ClaimUntil int64  `dynamo:"claim_until,omitempty"` // Unix ms
}

// A create claims its registration number (account, country, number) before
// any provider is called: the guard item exists from then on, held by the
// claim's token with no entity yet, so a concurrent duplicate is refused
// without a provider call. The create's transaction turns the claim into the
// guard of its entity; a create that fails releases it; a claim whose holder
// died lapses after its lease.

// ClaimRegistration claims the number for the create holding token, until
// now+lease. A number another entity has, or another live create holds, is
// "has already been taken". The same token may claim again (a retry of the
// same Idempotency-Key takes over its own claim).
func (s *Store) ClaimRegistration(ctx context.Context, accountID int64, country, number, token string, now time.Time, lease time.Duration) error {
	it := registrationGuardItem{AccountID: accountID, SK: registrationGuardSK(country, number), Claim: token, ClaimUntil: now.Add(lease).UnixMilli()}
	err := s.table(schema.Accounts).Put(it).
		If("attribute_not_exists(sk) OR (entity_id = ? AND (claim_until < ? OR claim = ?))", 0, now.UnixMilli(), token).
		Run(ctx)
	if isCondFailed(err) {
		return domain.Invalid("registration_number", domain.MsgRegistrationTaken)
	}
	return wrap(err, "claim registration %s in %s", number, country)
}

// ReleaseRegistration gives up a claim that made no entity, so that the
// number can be created again at once.
func (s *Store) ReleaseRegistration(ctx context.Context, accountID int64, country, number, token string) error {
	err := s.table(schema.Accounts).Delete("account_id", accountID).Range("sk", registrationGuardSK(country, number)).
		If("entity_id = ? AND claim = ?", 0, token).Run(ctx)
	if isCondFailed(err) {
		return nil
	}
	return wrap(err, "release registration %s in %s", number, country)
}
