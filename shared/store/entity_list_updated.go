package store

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// An updated_since listing splits the account (or the country) at the
// threshold: the entities changed at or after it match, the others do not.
// by_updated (by_country_updated within a country) orders entities by their
// change time and carries each one's position in the sequence that orders
// the listing (its id; country_seq). Both are global indexes, so a change
// reaches them within about a second: a sync that overlaps its previous
// run by a minute misses nothing. Both sides are read in rounds, side by
// side, each round larger than the last, until one side ends: whichever is
// smaller is then known in full, at O(min(matches, non-matches)) keys, and
// it places the page:
//
//   - the matches known: their positions, newest first, are the listing;
//     the page's entities are fetched by key.
//   - the non-matches known: the page's ranks map to a range of positions
//     (each non-match above a rank shifts it down by one), read in one
//     query of the sequence index, less the non-matches inside it.
//
// With every entity matching (a first sync) or only the newest matching (a
// nightly one), the ending side is empty or short, and a page costs what an
// unfiltered one does plus two short queries, at any account size.

// Rounds of the side reads: keys per side in the first round (at least two
// pages' worth, so a side of a page or two ends at once), the growth per
// round, and the most per request (keys-only items, well under 1 MB). The
// non-matching side's first round is a probe: with every entity matching
// (a first sync) it is empty, and with only the newest matching (a nightly
// sync) the matching side ends in the first round; either way the probe
// answers all that is needed of that side, at a few keys. From the second
// round both sides read alike, so the one that ends is the smaller.
const (
	firstSideRound = 128
	firstProbe     = 16
	sideGrowth     = 4
	maxSideRound   = 8192
)

// updatedKey is one by_updated (or by_country_updated) entry.
type updatedKey struct {
	EntityID   int64 `dynamo:"entity_id"`
	CountrySeq int64 `dynamo:"country_seq"`
}

// place is the entry's place in the listing's sequence.
func (k updatedKey) place(country string) int64 {
	if country == "" {
		return domain.SeqOfID(k.EntityID)
	}
	return k.CountrySeq
}

// side is one side of the threshold, read in rounds.
type side struct {
	q    func() *dynamo.Query
	keys []updatedKey
	next dynamo.PagingKey
	done bool
}

// read takes the side's next round of at most n keys.
func (sd *side) read(ctx context.Context, n int) error {
	q := sd.q().SearchLimit(n)
	if sd.next != nil {
		q = q.StartFrom(sd.next)
	}
	var page []updatedKey
	next, err := q.AllWithLastEvaluatedKey(ctx, &page)
	if err != nil {
		return err
	}
	sd.keys = append(sd.keys, page...)
	sd.next, sd.done = next, next == nil
	return nil
}

func (s *Store) listUpdatedSince(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error) {
	country := f.CountryCode
	since := domain.FormatTime(ceilMilli(*f.UpdatedSince))
	before := domain.FormatTime(ceilMilli(*f.UpdatedSince).Add(-time.Millisecond))
	if c, ok := decodeCursor(f.Cursor); ok && c.fits(accountID, page, perPage, since, country) {
		return s.pageAfterCursor(ctx, accountID, c)
	}
	var matching, other side
	if country == "" {
		base := func() *dynamo.Query {
			return s.table(schema.Entities).Get("account_id", accountID).Index(schema.EntitiesByUpdated)
		}
		matching.q = func() *dynamo.Query { return base().Range("updated_at", dynamo.GreaterOrEqual, since) }
		other.q = func() *dynamo.Query { return base().Range("updated_at", dynamo.LessOrEqual, before) }
	} else {
		base := func() *dynamo.Query {
			return s.table(schema.Entities).Get("country_key", countryKey(accountID, country)).Index(schema.EntitiesByCountryUpdated)
		}
		matching.q = func() *dynamo.Query { return base().Range("updated_at", dynamo.GreaterOrEqual, since) }
		other.q = func() *dynamo.Query { return base().Range("updated_at", dynamo.LessOrEqual, before) }
	}
	// The account's counts place a page beside the non-matches; read beside
	// the first round, they add no wait.
	var acct accountItem
	var acctErr error
	counted := make(chan struct{})
	go func() { defer close(counted); acct, acctErr = s.accountItem(ctx, accountID) }()
	err := readUntilOneEnds(ctx, &matching, &other, max(firstSideRound, 2*perPage), firstProbe)
	<-counted
	if err != nil {
		return domain.EntityPage{}, wrap(err, "list entities updated since")
	}
	if domain.ErrorCode(acctErr) == domain.ECodeNotFound {
		return domain.EntityPage{Entities: []domain.Entity{}}, nil
	}
	if acctErr != nil {
		return domain.EntityPage{}, acctErr
	}
	size := acct.sequenceLength(country)
	var out domain.EntityPage
	var last int64
	if matching.done {
		out, last, err = s.pageOfMatches(ctx, accountID, country, matching.keys, page, perPage)
	} else {
		out, last, err = s.pageBesideNonMatches(ctx, acct, country, since, other.keys, page, perPage)
	}
	if err != nil {
		return domain.EntityPage{}, err
	}
	more := len(out.Entities) == perPage && page*perPage < out.Total
	out.Next = nextCursor(accountID, page, perPage, more, since, country, last, out.Total, int(size))
	return out, nil
}

// readUntilOneEnds reads both sides round by round, side by side, until
// either has no more keys: first keys of a and probe keys of b in the
// first round, then alike.
func readUntilOneEnds(ctx context.Context, a, b *side, first, probe int) error {
	for na, nb := first, probe; !a.done && !b.done; {
		var wg sync.WaitGroup
		var errA, errB error
		wg.Add(2)
		go func() { defer wg.Done(); errA = a.read(ctx, na) }()
		go func() { defer wg.Done(); errB = b.read(ctx, nb) }()
		wg.Wait()
		if errA != nil {
			return errA
		}
		if errB != nil {
			return errB
		}
		na = min(na*sideGrowth, maxSideRound)
		nb = na
	}
	return nil
}

// pageOfMatches: every match is known; the listing is their positions,
// newest first. last is the page's last position.
func (s *Store) pageOfMatches(ctx context.Context, accountID int64, country string, keys []updatedKey, page, perPage int) (_ domain.EntityPage, last int64, _ error) {
	// Each key's place, then the listing.
	type match struct{ pos, id int64 }
	ms := make([]match, len(keys))
	for i, k := range keys {
		ms[i] = match{k.place(country), k.EntityID}
	}
	slices.SortFunc(ms, func(a, b match) int { return cmpDesc(a.pos, b.pos) })
	// An entity changed between two rounds moved up the index and was read
	// twice: once is its place.
	ms = slices.Compact(ms)
	var ids []int64
	for _, m := range pageOf(ms, page, perPage) {
		ids = append(ids, m.id)
		last = m.pos
	}
	ents, err := s.entitiesByID(ctx, accountID, ids)
	if err != nil {
		return domain.EntityPage{}, 0, err
	}
	return domain.EntityPage{Entities: ents, Total: len(ms)}, last, nil
}

// pageBesideNonMatches: every non-match is known; the page is the range of
// positions its ranks map to, less the non-matches in it. last is the
// page's last position.
func (s *Store) pageBesideNonMatches(ctx context.Context, acct accountItem, country, since string, others []updatedKey, page, perPage int) (_ domain.EntityPage, last int64, _ error) {
	accountID := acct.AccountID
	size := acct.sequenceLength(country)
	var below []int64 // non-match positions, highest first
	for _, k := range others {
		if p := k.place(country); p <= size {
			below = append(below, p)
		}
	}
	slices.SortFunc(below, cmpDesc)
	total := int(size) - len(below)
	out := domain.EntityPage{Entities: []domain.Entity{}, Total: total}
	first := (page-1)*perPage + 1
	if first > total {
		return out, 0, nil
	}
	hi := positionOfRank(size, below, int64(first))
	lo := positionOfRank(size, below, int64(min(page*perPage, total)))
	items, err := s.entitiesInSequence(ctx, accountID, country, lo, hi)
	if err != nil {
		return domain.EntityPage{}, 0, err
	}
	for _, it := range items {
		// The time decides, not the side it was read on: an entity never
		// stops matching, and one changed or imported since the sides were
		// read is placed by what it is now. The page stays a page.
		if it.UpdatedAt < since || len(out.Entities) == perPage {
			continue
		}
		out.Entities = append(out.Entities, it.domain())
		last = it.place(country)
	}
	return out, last, nil
}

// positionOfRank is the position of the rank-th match from the top of a
// sequence 1..last whose non-matches are below (highest first): each
// non-match at or above the candidate pushes it down by one.
func positionOfRank(last int64, below []int64, rank int64) int64 {
	pos := last - rank + 1
	for _, nm := range below {
		if nm < pos {
			break
		}
		pos--
	}
	return pos
}

func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
