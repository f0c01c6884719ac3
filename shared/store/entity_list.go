package store

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// ListEntities returns page (from 1) of the account's entities matching f,
// newest first (id descending), perPage to a page.
//
// Cost, whatever the page or the account's size: without filters, one
// GetItem of the account's counters and one Query of at most perPage items
// (an entity's id is its place in the account's sequence, so page p is a key
// range of the table). With a country, the same range of the country's
// sequence in a keys-only global index, then the items by key. A
// registration number matches at most one entity per country.
// updated_since (alone or with a country) reads the smaller side of its
// threshold, then the page (entity_list_updated.go).
func (s *Store) ListEntities(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error) {
	if page < 1 || perPage < 1 {
		return domain.EntityPage{}, errors.New("list entities: page and perPage must be positive")
	}
	f.CountryCode = strings.ToUpper(f.CountryCode)
	switch {
	case f.RegistrationNumber != "":
		return s.listByRegistration(ctx, accountID, f, page, perPage)
	case f.UpdatedSince != nil:
		return s.listUpdatedSince(ctx, accountID, f, page, perPage)
	default:
		return s.listBySequence(ctx, accountID, f.CountryCode, page, perPage)
	}
}

func (s *Store) listBySequence(ctx context.Context, accountID int64, country string, page, perPage int) (domain.EntityPage, error) {
	acct, err := s.accountItem(ctx, accountID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.EntityPage{Entities: []domain.Entity{}}, nil
	}
	if err != nil {
		return domain.EntityPage{}, err
	}
	total := acct.sequenceLength(country)
	out := domain.EntityPage{Entities: []domain.Entity{}, Total: int(total)}
	// Sequence numbers run 1..total in creation order; newest first means page
	// 1 holds the highest ones.
	hi := total - int64(page-1)*int64(perPage)
	if hi < 1 {
		return out, nil
	}
	lo := max(hi-int64(perPage)+1, 1)

	items, err := s.entitiesInSequence(ctx, accountID, country, lo, hi)
	if err != nil {
		return domain.EntityPage{}, err
	}
	for _, it := range items {
		out.Entities = append(out.Entities, it.domain())
	}
	return out, nil
}

// entitiesInSequence reads the entities at positions lo..hi of the
// account's sequence (the country's, with one), newest first.
func (s *Store) entitiesInSequence(ctx context.Context, accountID int64, country string, lo, hi int64) ([]entityItem, error) {
	if country == "" {
		// The position is the id: one strongly consistent Query.
		var items []entityItem
		err := s.table(schema.Entities).Get("account_id", accountID).
			Range("entity_id", dynamo.Between, domain.ScopedID(accountID, lo), domain.ScopedID(accountID, hi)).
			Order(dynamo.Descending).Consistent(true).All(ctx, &items)
		if err != nil {
			return nil, wrap(err, "list entities %d..%d of account %d", lo, hi, accountID)
		}
		return items, nil
	}
	ids, err := s.countryRange(ctx, accountID, country, lo, hi)
	if err != nil {
		return nil, err
	}
	return s.entityItemsByID(ctx, accountID, ids)
}

// countryRange is the ids at positions lo..hi of the country's sequence,
// newest first. The index is global, so eventually consistent: a position
// the account's counters say is taken but the index does not show yet (an
// entity committed a moment ago) is asked again, for a bounded while.
func (s *Store) countryRange(ctx context.Context, accountID int64, country string, lo, hi int64) ([]int64, error) {
	want := int(hi - lo + 1)
	var ids []int64
	for attempt := 0; ; attempt++ {
		var keys []struct {
			EntityID int64 `dynamo:"entity_id"`
		}
		err := s.table(schema.Entities).Get("country_key", countryKey(accountID, country)).
			Range("country_seq", dynamo.Between, lo, hi).Index(schema.EntitiesByCountrySeq).
			Order(dynamo.Descending).All(ctx, &keys)
		if err != nil {
			return nil, wrap(err, "list %s entities %d..%d of account %d", country, lo, hi, accountID)
		}
		ids = ids[:0]
		for _, k := range keys {
			ids = append(ids, k.EntityID)
		}
		if len(ids) >= want || attempt == indexLagAttempts {
			if len(ids) < want {
				logging.From(ctx).Warn("country index behind the account's counters", "account_id", accountID,
					"country", country, "want", want, "have", len(ids))
			}
			return ids, nil
		}
		if err := sleepCtx(ctx, indexLagWait<<attempt); err != nil {
			return nil, err
		}
	}
}

// A global index follows its table within about a second, usually within
// milliseconds. A read that can tell the index is behind asks again after
// 20, 40, … ms, five times (620 ms in all) before it answers what it has.
const (
	indexLagAttempts = 5
	indexLagWait     = 20 * time.Millisecond
)

// listByRegistration finds a number's entities from its uniqueness guards
// (one per country, in the accounts table: strongly consistent), then reads
// them by key.
func (s *Store) listByRegistration(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error) {
	q := s.table(schema.Accounts).Get("account_id", accountID).Consistent(true)
	if f.CountryCode != "" {
		q = q.Range("sk", dynamo.Equal, registrationGuardSK(f.CountryCode, f.RegistrationNumber))
	} else {
		q = q.Range("sk", dynamo.BeginsWith, skRegistrationPrefix+f.RegistrationNumber+"#")
	}
	var guards []registrationGuardItem
	if err := q.All(ctx, &guards); err != nil {
		return domain.EntityPage{}, wrap(err, "list entities by registration number")
	}
	var ids []int64
	for _, g := range guards {
		// A claim with no entity yet is a create still running.
		if _, exact := guardCountry(g.SK, f.RegistrationNumber); exact && g.EntityID != 0 {
			ids = append(ids, g.EntityID)
		}
	}
	items, err := s.entityItemsByID(ctx, accountID, ids)
	if err != nil {
		return domain.EntityPage{}, err
	}
	var matched []domain.Entity
	for _, it := range items {
		e := it.domain()
		if f.UpdatedSince != nil && e.UpdatedAt.Before(*f.UpdatedSince) {
			continue
		}
		matched = append(matched, e)
	}
	sort.Slice(matched, func(i, j int) bool { return matched[i].ID > matched[j].ID })
	return domain.EntityPage{Entities: pageOf(matched, page, perPage), Total: len(matched)}, nil
}

// entitiesByID fetches entities by id, in the order of ids; ids that vanished
// in between are skipped.
func (s *Store) entitiesByID(ctx context.Context, accountID int64, ids []int64) ([]domain.Entity, error) {
	items, err := s.entityItemsByID(ctx, accountID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Entity, 0, len(items))
	for _, it := range items {
		out = append(out, it.domain())
	}
	return out, nil
}

// entityItemsByID reads entities by key, strongly consistent (BatchGetItem,
// 100 keys a request), in the order of ids; ids that vanished are skipped.
func (s *Store) entityItemsByID(ctx context.Context, accountID int64, ids []int64) ([]entityItem, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{accountID, id}
	}
	var items []entityItem
	err := s.table(schema.Entities).Batch("account_id", "entity_id").Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err, "get %d entities", len(ids))
	}
	byID := make(map[int64]entityItem, len(items))
	for _, it := range items {
		byID[it.EntityID] = it
	}
	out := make([]entityItem, 0, len(ids))
	for _, id := range ids {
		if it, ok := byID[id]; ok {
			out = append(out, it)
		}
	}
	return out, nil
}

func pageOf[T any](all []T, page, perPage int) []T {
	start := (page - 1) * perPage
	if start >= len(all) {
		return []T{}
	}
	return all[start:min(start+perPage, len(all))]
}

// ceilMilli rounds t up to the milliseconds we store, so that "at or after t"
// never takes in a change made in the same millisecond but before t.
func ceilMilli(t time.Time) time.Time {
	if r := t.Truncate(time.Millisecond); !r.Equal(t) {
		return r.Add(time.Millisecond)
	}
	return t
}
