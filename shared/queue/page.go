package queue

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evs-kyb/evs/shared/domain"
)

// Row is one review of the queue as the console shows it.
type Row struct {
	Review    domain.Review
	LegalName string
	Country   string
	// Risk is "" for an entity never assessed.
	Risk      string
	Sanctions string
	Age       time.Duration
	Due       Due
}

// Page is one page of the queue. Counts are the account's, per active
// status, whatever the filters; Next is the cursor of the next page, ""
// at the end.
type Page struct {
	Rows   []Row
	Counts map[domain.ReviewStatus]int
	Next   string
}

// Page returns the page of the account's queue after cursor ("" for the
// first), as operatorID sees it (Assignee "me"). Its three reads (the
// reviews and their entities, the counts, the account's SLA) go side by
// side.
//
// validation_failed: a filter or the cursor is not one the queue knows.
func (s *Service) Page(ctx context.Context, accountID, operatorID int64, f Filter, cursor string) (Page, error) {
	now, err := s.now()
	if err != nil {
		return Page{}, err
	}
	if err := f.Validate(); err != nil {
		return Page{}, err
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return Page{}, err
	}
	q, err := f.query(accountID, operatorID, after, PageSize)
	if err != nil {
		return Page{}, err
	}
	var (
		slice   domain.QueueSlice
		counts  map[domain.ReviewStatus]int
		account domain.Account
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		slice, err = s.Store.QueuePage(gctx, q)
		return err
	})
	g.Go(func() (err error) {
		counts, err = s.Store.QueueCounts(gctx, accountID)
		return err
	})
	g.Go(func() (err error) {
		account, err = s.Store.Account(gctx, accountID)
		return err
	})
	if err := g.Wait(); err != nil {
		return Page{}, fmt.Errorf("queue page of account %d: %w", accountID, err)
	}
	page := Page{Counts: counts, Next: encodeCursor(slice.Next), Rows: make([]Row, 0, len(slice.Entries))}
	for _, e := range slice.Entries {
		page.Rows = append(page.Rows, rowOf(e, now, account.Settings.SLADays[e.Review.Purpose]))
	}
	return page, nil
}

func rowOf(e domain.QueueEntry, now time.Time, slaDays int) Row {
	return Row{
		Review: e.Review, LegalName: e.LegalName, Country: e.Country,
		Risk: string(e.Risk), Sanctions: string(e.Sanctions),
		Age: max(now.Sub(e.Review.CreatedAt), 0), Due: dueOfReview(e.Review, now, slaDays),
	}
}
