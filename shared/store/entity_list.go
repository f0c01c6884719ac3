package store

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// ListEntities returns page (from 1) of the account's entities matching f,
// newest first (id descending), perPage to a page.
//
// Cost: without filters, or with only a country, one GetItem of the account's
// counters and one Query of at most perPage items, whatever the page or the
// account's size: entities carry a dense per-account (and per-country)
// sequence, so page p is a key range. A registration number matches at most a
// handful of entities. updated_since (alone or with a country) reads the
// smaller side of its threshold, then the page (entity_list_updated.go).
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
	total := acct.EntityCount
	if country != "" {
		total = acct.CountryCounts[country]
	}
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
// account's sequence (the country's, with one), newest first: one Query.
func (s *Store) entitiesInSequence(ctx context.Context, accountID int64, country string, lo, hi int64) ([]entityItem, error) {
	q := s.table(schema.Entities).Get("account_id", accountID)
	if country == "" {
		q = q.Range("seq", dynamo.Between, lo, hi).Index(schema.EntitiesBySeq)
	} else {
		q = q.Range("country_seq", dynamo.Between, countrySeqKey(country, lo), countrySeqKey(country, hi)).Index(schema.EntitiesByCountrySeq)
	}
	var items []entityItem
	if err := q.Order(dynamo.Descending).Consistent(true).All(ctx, &items); err != nil {
		return nil, wrap(err, "list entities %d..%d of account %d", lo, hi, accountID)
	}
	return items, nil
}

func (s *Store) listByRegistration(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error) {
	q := s.table(schema.Entities).Get("account_id", accountID).Index(schema.EntitiesByRegistration).Consistent(true)
	if f.CountryCode != "" {
		q = q.Range("registration_key", dynamo.Equal, registrationKey(f.RegistrationNumber, f.CountryCode))
	} else {
		// The '#' separator keeps "7001" from matching "70011".
		q = q.Range("registration_key", dynamo.BeginsWith, f.RegistrationNumber+"#")
	}
	var items []entityItem
	if err := q.All(ctx, &items); err != nil {
		return domain.EntityPage{}, wrap(err, "list entities by registration number")
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
	out := []domain.Entity{}
	if len(ids) == 0 {
		return out, nil
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
	for _, id := range ids {
		if it, ok := byID[id]; ok {
			out = append(out, it.domain())
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
