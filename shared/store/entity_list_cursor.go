package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// An updated_since page placed by its number costs O(min(matches,
// non-matches)) keys: the total must be exact and the page's ranks mapped to
// places. A walk following rel=next would pay that on every page. So a page
// that can be continued cheaply hands the next one a cursor (EntityPage.Next,
// carried in the Link next URL): the total and the size counted on the
// walk's first page, and the place of the page's last entity. The next page
// then reads the sequence downwards from there, keeping the entities changed
// since the threshold, until it has a page: about per_page × size ÷ matches
// items, so a whole walk reads the sequence once, O(account). A cursor is
// handed on only where that read is cheaper than counting again (matches
// not rarer than √(per_page × size), roughly); otherwise every page is
// placed by its number, at O(min(matches, non-matches)), which is then at
// most √(per_page × size) a page and O(size) for the walk.
//
// The cursor is opaque to callers and trusted no further than their own
// account's listing (it names the account; its numbers are bounded): one
// that does not fit the request (another account, page, threshold, country
// or per_page, or not one this service wrote) is ignored, and the page is
// placed by its number.
//
// Matches never stop matching, but an entity below the cursor may start to
// (changed during the walk): a page reached by cursor reads one match more
// than it shows, so a walk goes on while matches remain, and its total
// grows past the first page's count when they outnumber it.

// walkCursor is where an updated_since walk stands.
type walkCursor struct {
	Account       int64
	Page, PerPage int    // the page it continues to, and its size
	Since         string // the threshold, as stored times compare
	Country       string
	Last          int64 // the place of the previous page's last entity
	Total, Size   int   // matches and entities when the walk began
}

const cursorPrefix = "w2|"

func (c walkCursor) encode() string {
	raw := fmt.Sprintf("%s%d|%d|%d|%s|%s|%d|%d|%d", cursorPrefix, c.Account, c.Page, c.PerPage, c.Since, c.Country, c.Last, c.Total, c.Size)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(s string) (walkCursor, bool) {
	if s == "" || len(s) > 256 {
		return walkCursor{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(raw), cursorPrefix) {
		return walkCursor{}, false
	}
	parts := strings.Split(strings.TrimPrefix(string(raw), cursorPrefix), "|")
	if len(parts) != 8 {
		return walkCursor{}, false
	}
	var n [6]int64
	for i, p := range []string{parts[0], parts[1], parts[2], parts[5], parts[6], parts[7]} {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 || v >= domain.IDSpan {
			return walkCursor{}, false
		}
		n[i] = v
	}
	c := walkCursor{Account: n[0], Page: int(n[1]), PerPage: int(n[2]), Since: parts[3], Country: parts[4],
		Last: n[3], Total: int(n[4]), Size: int(n[5])}
	if c.Page < 2 || c.PerPage < 1 || c.PerPage > maxBelowRead || c.Last < 1 || c.Size < c.Total {
		return walkCursor{}, false
	}
	return c, true
}

// fits reports whether the cursor continues this very request.
func (c walkCursor) fits(accountID int64, page, perPage int, since, country string) bool {
	return c.Account == accountID && c.Page == page && c.PerPage == perPage && c.Since == since && c.Country == country
}

// worthACursor reports whether reading the sequence on from a page's end
// (per_page × size ÷ matches items) costs less than placing the next page
// by its number (the smaller side and a round of keys).
func worthACursor(total, size, perPage int) bool {
	if total == 0 {
		return false
	}
	return perPage*size/total <= min(total, size-total)+max(firstSideRound, 2*perPage)
}

// nextCursor is the cursor to the page after one that ended at place last,
// or "" when there is no next page or it is cheaper placed by its number.
func nextCursor(accountID int64, page, perPage int, more bool, since, country string, last int64, total, size int) string {
	if !more || last <= 1 || !worthACursor(total, size, perPage) {
		return ""
	}
	return walkCursor{Account: accountID, Page: page + 1, PerPage: perPage, Since: since, Country: country,
		Last: last, Total: total, Size: max(size, total)}.encode()
}

// pageAfterCursor is the page a cursor continues to: the first per_page
// entities below its place changed at or after its threshold.
func (s *Store) pageAfterCursor(ctx context.Context, accountID int64, c walkCursor) (domain.EntityPage, error) {
	// The first read expects the walk's density, with a fifth to spare.
	density := float64(c.Size) / float64(max(c.Total, 1))
	first := int(min(float64(maxBelowRead), float64(c.PerPage+1)*density*1.2+10))
	items, err := s.matchesBelow(ctx, accountID, c.Country, c.Since, c.Last, c.PerPage+1, first)
	if err != nil {
		return domain.EntityPage{}, err
	}
	more := len(items) > c.PerPage
	items = items[:min(len(items), c.PerPage)]
	shown := (c.Page-1)*c.PerPage + len(items)
	total := max(c.Total, shown)
	if more {
		// Matches below the first page's count: entities changed since.
		total = max(total, shown+1)
	}
	out := domain.EntityPage{Entities: make([]domain.Entity, 0, len(items)), Total: total}
	for _, it := range items {
		out.Entities = append(out.Entities, it.domain())
	}
	if n := len(items); n > 0 {
		out.Next = nextCursor(accountID, c.Page, c.PerPage, more, c.Since, c.Country, items[n-1].place(c.Country), total, c.Size)
	}
	return out, nil
}

// place is the entity's place in the sequence a listing orders by.
func (it entityItem) place(country string) int64 {
	if country == "" {
		return domain.SeqOfID(it.EntityID)
	}
	return it.CountrySeq
}

// Reads of the sequence below a cursor: each one twice the last, at most
// 1,000 items (well under 1 MB).
const maxBelowRead = 1000

// matchesBelow reads the sequence (the country's) downwards from below
// place last, in growing reads from first items, keeping the entities
// changed at or after since, until it has n of them or the sequence ends.
func (s *Store) matchesBelow(ctx context.Context, accountID int64, country, since string, last int64, n, first int) ([]entityItem, error) {
	var out []entityItem
	var from dynamo.PagingKey
	for size := first; last > 1; size = min(2*size, maxBelowRead) {
		var items []entityItem
		var next dynamo.PagingKey
		var err error
		if country == "" {
			// The table itself, strongly consistent; DynamoDB drops the
			// older changes before answering (they are read, and paid for,
			// all the same).
			q := s.table(schema.Entities).Get("account_id", accountID).
				Range("entity_id", dynamo.Between, domain.ScopedID(accountID, 1), domain.ScopedID(accountID, last-1)).
				Filter("$ >= ?", "updated_at", since).Order(dynamo.Descending).Consistent(true).SearchLimit(size)
			if from != nil {
				q = q.StartFrom(from)
			}
			next, err = q.AllWithLastEvaluatedKey(ctx, &items)
		} else {
			items, next, err = s.countryBelow(ctx, accountID, country, last, size, from)
			kept := items[:0]
			for _, it := range items {
				if it.UpdatedAt >= since {
					kept = append(kept, it)
				}
			}
			items = kept
		}
		if err != nil {
			return nil, wrap(err, "list entities of account %d below %d", accountID, last)
		}
		out = append(out, items...)
		if len(out) >= n {
			return out[:n], nil
		}
		if next == nil {
			break
		}
		from = next
	}
	return out, nil
}

// countryBelow reads up to size places of the country's sequence below
// last from its index, then the entities by key.
func (s *Store) countryBelow(ctx context.Context, accountID int64, country string, last int64, size int, from dynamo.PagingKey) ([]entityItem, dynamo.PagingKey, error) {
	q := s.table(schema.Entities).Get("country_key", countryKey(accountID, country)).
		Range("country_seq", dynamo.Between, 1, last-1).Index(schema.EntitiesByCountrySeq).
		Order(dynamo.Descending).SearchLimit(size)
	if from != nil {
		q = q.StartFrom(from)
	}
	var keys []struct {
		EntityID int64 `dynamo:"entity_id"`
	}
	next, err := q.AllWithLastEvaluatedKey(ctx, &keys)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int64, len(keys))
	for i, k := range keys {
		ids[i] = k.EntityID
	}
	items, err := s.entityItemsByID(ctx, accountID, ids)
	return items, next, err
}
