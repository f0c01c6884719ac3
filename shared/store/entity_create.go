package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// maxCreateAttempts bounds the retries when a commit finds the account's
// sequence moved (a lapsed commit turn; see create_lock.go).
const maxCreateAttempts = 25

// readBackTimeout bounds the read-back of a commit whose answer was lost.
const readBackTimeout = 2 * time.Second

// outcomeUnknown reports a commit DynamoDB did not answer, even when asked
// again: it may or may not have been applied. The caller says so (503,
// service_unavailable) and leaves its claims to lapse; a retry with the same
// Idempotency-Key finds out.
func outcomeUnknown(accountID int64, cause error) error {
	return fmt.Errorf("create entity in account %d: %w (%v)", accountID,
		domain.Errorf(domain.ECodeUnavailable, "The service could not confirm whether the entity was created; retry with the same Idempotency-Key."), cause)
}

// CreateEntity is CommitEntity without a claim or an Idempotency-Key.
func (s *Store) CreateEntity(ctx context.Context, d domain.EntityDetail) (domain.EntityDetail, error) {
	return s.CommitEntity(ctx, d, domain.CommitOptions{})
}

// CommitEntity writes a new entity with its checks and reviews, the
// account's counters, the registration number's uniqueness guard and, with
// an Idempotency-Key, the answer to replay, in one transaction: a failure
// leaves nothing behind. It assigns every id (the ids in d are ignored but
// for checks reserved with ReserveCheckIDs): the entity's is its place in
// the account's sequence, 1, 2, … in commit order (domain.ScopedID), so
// that "id descending" is "newest first" and a page of the listing is a key
// range. It links the
// checks to the first review (intake checks inform the initial review) and
// sets the entity's and review's check and review counts.
//
// Commits in one account take turns (create_lock.go), so the transaction
// runs once. One whose answer is lost is asked again with the same client
// token: DynamoDB answers as it did, or applies it now; if it still does not
// answer, a service_unavailable error says the outcome is unknown. A
// registration number already taken in the account and country is a
// validation error on registration_number.
func (s *Store) CommitEntity(ctx context.Context, d domain.EntityDetail, o domain.CommitOptions) (domain.EntityDetail, error) {
	e := d.Entity
	if e.AccountID == 0 || e.CountryCode == "" || e.RegistrationNumber == "" {
		return domain.EntityDetail{}, errors.New("create entity: account, country and registration number are required")
	}
	checks := append([]domain.Check(nil), d.Checks...)
	reviews := append([]domain.Review(nil), d.Reviews...)
	e.Parties = append([]domain.Party(nil), e.Parties...)
	if err := s.assignChildIDs(ctx, e.AccountID, checks, reviews, e.Parties); err != nil {
		return domain.EntityDetail{}, err
	}
	// A merchant with many parties has more checks (and evidence) than one
	// transaction holds: the commit takes what fits, the entity's own
	// checks first, and the rest follow in transactions of their own
	// (addLaterChecks), each counting its checks on the entity.
	checks, later := splitForCommit(checks, len(reviews), o.Idempotency != nil)
	e.ChecksCount, e.ReviewsCount = len(checks), len(reviews)
	e.RelationshipsCount = domain.CurrentParties(e.Parties)
	e.DossierRev = 1 // the dossier's first revision

	for attempt := 0; ; attempt++ {
		t, end, err := s.takeTurn(ctx, e.AccountID, createLease)
		if err != nil {
			return domain.EntityDetail{}, err
		}
		if t.acct.EntityCount+1 >= domain.IDSpan {
			end()
			return domain.EntityDetail{}, errAccountFull(e.AccountID)
		}
		e.ID = domain.ScopedID(e.AccountID, t.acct.EntityCount+1)
		linkChildren(&e, checks, reviews)
		linkChecks(&e, later, reviews) // to the intake review too, counted there batch by batch
		batches := laterBatches(later) // of the checks linked to this attempt's id
		out := domain.EntityDetail{Entity: e, Checks: sortedChecks(checks), Reviews: sortedReviews(reviews)}
		tx, err := s.createTx(t, out, answerOf(out, batches), checks, reviews, o)
		if err != nil {
			end()
			return domain.EntityDetail{}, err
		}
		tx.IdempotentWithToken(newToken())
		err = tx.Run(ctx)
		if ambiguous(err) {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
			err = tx.Run(rctx)
			cancel()
			if ambiguous(err) {
				// Ending the turn is safe either way: applied, the commit
				// ended it; not yet, its condition (the turn is ours) now
				// keeps it from ever applying.
				end()
				return domain.EntityDetail{}, outcomeUnknown(e.AccountID, err)
			}
		}
		if err == nil {
			if len(later) == 0 {
				return out, nil
			}
			stored, err := s.addLaterChecks(ctx, &out, batches)
			out.Checks = sortedChecks(append(checks, stored...))
			if err != nil {
				// The entity and what its commit held stand; the checks not
				// written are missing from it (a party shows unscreened, and
				// an approval waits until the checks run again).
				return out, fmt.Errorf("create entity %d: %d of %d checks written after the commit: %w", e.ID, len(stored), len(later), err)
			}
			return out, nil
		}
		end()
		switch {
		case cancelledAt(err, 1):
			return domain.EntityDetail{}, domain.Invalid("registration_number", domain.MsgRegistrationTaken)
		case o.Idempotency != nil && cancelledAt(err, 3+len(checks)+len(reviews)):
			return domain.EntityDetail{}, domain.Errorf(domain.ECodeConflict, "Another request with this Idempotency-Key took it over; retry shortly.")
		case (cancelledAt(err, 0) || isTxConflict(err)) && attempt < maxCreateAttempts:
			// The turn lapsed and the account's sequence moved meanwhile.
			if err := sleepJitter(ctx, attempt); err != nil {
				return domain.EntityDetail{}, err
			}
		default:
			return domain.EntityDetail{}, fmt.Errorf("create entity in account %d: %w", e.AccountID, err)
		}
	}
}

// createTx is the commit. Its items, in order (cancellation reasons name
// them by index): 0 the account's counters, which also ends the turn, 1 the
// registration guard, 2 the entity, then the checks, the reviews, the
// Idempotency-Key's answer, the checks' evidence and the queue's counts.
func (s *Store) createTx(t turn, d, answer domain.EntityDetail, checks []domain.Check, reviews []domain.Review, o domain.CommitOptions) (*dynamo.WriteTx, error) {
	e := d.Entity
	countrySeq := t.acct.CountryCounts[e.CountryCode] + 1
	accounts := s.table(schema.Accounts)
	tx := s.db.WriteTx()
	// 0: the counters, conditioned on what the turn read and on the turn
	// still being ours.
	tx.Update(accounts.Update("account_id", e.AccountID).Range("sk", skAccount).
		Set("entity_count", domain.SeqOfID(e.ID)).
		Set("country_counts."+e.CountryCode, countrySeq).
		RemoveExpr("create_turn, create_turn_until").
		If("entity_count = ? AND create_turn = ?", t.acct.EntityCount, t.owner))
	// 1: the registration number, once per account and country: the
	// create's claim becomes the entity's guard.
	guardSK := registrationGuardSK(e.CountryCode, e.RegistrationNumber)
	if o.ClaimToken != "" {
		tx.Update(accounts.Update("account_id", e.AccountID).Range("sk", guardSK).
			// One REMOVE clause: Remove's several paths come out in map
			// order, and a re-asked commit must be the same request.
			Set("entity_id", e.ID).RemoveExpr("claim, claim_until").
			If("claim = ? AND entity_id = ?", o.ClaimToken, 0))
	} else {
		tx.Put(accounts.Put(registrationGuardItem{AccountID: e.AccountID, SK: guardSK, EntityID: e.ID}).If("attribute_not_exists(sk)"))
	}
	tx.Put(s.table(schema.Entities).Put(newEntityItem(e, countrySeq)).If("attribute_not_exists(entity_id)"))
	for _, c := range checks {
		tx.Put(s.table(schema.Checks).Put(newCheckItem(c)))
	}
	for _, r := range reviews {
		tx.Put(s.table(schema.Reviews).Put(newReviewItem(r).of(&e)))
	}
	if a := o.Idempotency; a != nil {
		body, err := a.Render(answer)
		if err != nil {
			return nil, fmt.Errorf("render the answer of entity %d: %w", e.ID, err)
		}
		tx.Update(s.completeIdempotent(e.AccountID, a.Key, a.RequestHash, a.Status, string(body)))
	}
	// Then the providers' answers, kept with their checks.
	s.addEvidencePuts(tx, checks, retainedFields{})
	// Last: the reviews counted in the queue.
	s.addQueueCounts(tx, e.AccountID, createdDelta(reviews))
	return tx, nil
}

// ambiguous reports whether a write's error leaves its outcome unknown:
// anything but DynamoDB's own refusal (a cancelled transaction, a client
// error such as a validation failure).
func ambiguous(err error) bool {
	if err == nil {
		return false
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return false
	}
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorFault() == smithy.FaultClient {
		// A commit still running, or one already applied under this token,
		// says nothing of the outcome either.
		var busy *types.TransactionInProgressException
		var mismatch *types.IdempotentParameterMismatchException
		return errors.As(err, &busy) || errors.As(err, &mismatch)
	}
	return true
}

// assignChildIDs reserves, in one request, ids in the account for the
// checks and reviews that have none; ids reserved beforehand
// (ReserveCheckIDs) are kept.
func (s *Store) assignChildIDs(ctx context.Context, accountID int64, checks []domain.Check, reviews []domain.Review, parties []domain.Party) error {
	need := map[string]int{}
	for _, c := range checks {
		if c.ID == 0 {
			need[seqCheck]++
		}
	}
	for _, r := range reviews {
		if r.ID == 0 {
			need[seqReview]++
		}
	}
	for _, p := range parties {
		if p.ID == 0 {
			need[seqParty]++
		}
	}
	next, err := s.nextAccountIDs(ctx, accountID, need)
	if err != nil {
		return err
	}
	for i := range checks {
		if checks[i].ID == 0 {
			checks[i].ID = next[seqCheck]
			next[seqCheck]++
		}
	}
	for i := range reviews {
		if reviews[i].ID == 0 {
			reviews[i].ID = next[seqReview]
			next[seqReview]++
		}
	}
	for i := range parties {
		if parties[i].ID == 0 {
			parties[i].ID = next[seqParty]
			next[seqParty]++
		}
	}
	return nil
}

// ReserveCheckIDs reserves n check ids in the account ahead of a create, so
// that a check can be named (to a screening provider) before it is written.
func (s *Store) ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.reserve(ctx, accountID, seqCheck, n)
}

// ReservePartyIDs reserves n party ids in the account, for parties a
// check will name as its subject before they are written.
func (s *Store) ReservePartyIDs(ctx context.Context, accountID int64, n int) ([]int64, error) {
	return s.reserve(ctx, accountID, seqParty, n)
}

func (s *Store) reserve(ctx context.Context, accountID int64, seq string, n int) ([]int64, error) {
	next, err := s.nextAccountIDs(ctx, accountID, map[string]int{seq: n})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = next[seq] + int64(i)
	}
	return ids, nil
}

func linkChildren(e *domain.Entity, checks []domain.Check, reviews []domain.Review) {
	linkChecks(e, checks, reviews)
	for i := range reviews {
		reviews[i].AccountID, reviews[i].EntityID = e.AccountID, e.ID
		reviews[i].ChecksCount = 0
	}
	if len(reviews) > 0 {
		reviews[0].ChecksCount = len(checks)
	}
}

// linkChecks gives checks their entity and links them to the first review
// (intake checks inform the initial review); it counts nothing.
func linkChecks(e *domain.Entity, checks []domain.Check, reviews []domain.Review) {
	for i := range checks {
		checks[i].AccountID, checks[i].EntityID = e.AccountID, e.ID
		checks[i].ReviewID = nil
		if len(reviews) > 0 {
			rid := reviews[0].ID
			checks[i].ReviewID = &rid
		}
	}
}

func sortedChecks(cs []domain.Check) []domain.Check {
	out := append([]domain.Check{}, cs...)
	SortChecks(out)
	return out
}

func sortedReviews(rs []domain.Review) []domain.Review {
	out := append([]domain.Review{}, rs...)
	SortReviews(out)
	return out
}

// cancelledAt reports whether a transaction was cancelled because the
// condition of its item i failed.
func cancelledAt(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	return aws.ToString(tce.CancellationReasons[i].Code) == "ConditionalCheckFailed"
}

func sleepJitter(ctx context.Context, attempt int) error {
	return sleepCtx(ctx, time.Duration(5+rand.IntN(10*(attempt+1)))*time.Millisecond)
}

// sleepCtx waits d, or less if ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maxTxItems is DynamoDB's limit on a transaction's items.
const maxTxItems = 100

// commitFixedItems are the commit's items besides its checks and their
// evidence: the counters, the guard, the entity, the queue's counts (one
// shard) and the Idempotency-Key's answer.
func commitFixedItems(reviews int, idempotent bool) int {
	n := 4 + reviews
	if idempotent {
		n++
	}
	return n
}

// checkItems is how many items a check writes: itself, and its evidence
// when kept in the table.
func checkItems(c domain.Check) int {
	if c.Evidence != nil && c.Evidence.Stored {
		return 2
	}
	return 1
}

// splitForCommit is the checks the commit holds (the entity's own first,
// then the parties', in order, as many as fit) and those written after.
func splitForCommit(cs []domain.Check, reviews int, idempotent bool) (commit, later []domain.Check) {
	room := maxTxItems - commitFixedItems(reviews, idempotent)
	total := 0
	for _, c := range cs {
		total += checkItems(c)
	}
	if total <= room {
		return cs, nil
	}
	ordered := slices.Clone(cs)
	slices.SortStableFunc(ordered, func(a, b domain.Check) int {
		return cmp.Compare(subjectRank(a), subjectRank(b))
	})
	for _, c := range ordered {
		if n := checkItems(c); n <= room && len(later) == 0 {
			commit, room = append(commit, c), room-n
		} else {
			later = append(later, c)
		}
	}
	return commit, later
}

func subjectRank(c domain.Check) int {
	if c.SubjectType == nil {
		return 0
	}
	return 1
}

// laterBatches groups the checks written after the commit into
// transactions of up to maxTxItems, each with the entity's update and the
// intake review's.
func laterBatches(later []domain.Check) [][]domain.Check {
	var out [][]domain.Check
	for len(later) > 0 {
		room := maxTxItems - 2 // the entity's update and the intake review's
		var batch []domain.Check
		for len(later) > 0 && checkItems(later[0]) <= room {
			room -= checkItems(later[0])
			batch, later = append(batch, later[0]), later[1:]
		}
		out = append(out, batch)
	}
	return out
}

// answerOf is the create's answer once every batch is written: all its
// checks counted on the entity and its intake review, the dossier's
// revision moved once a batch. An Idempotency-Key keeps it, so a replay
// answers as the create did.
func answerOf(out domain.EntityDetail, batches [][]domain.Check) domain.EntityDetail {
	if len(batches) == 0 {
		return out
	}
	all := slices.Clone(out.Checks)
	for _, b := range batches {
		all = append(all, b...)
	}
	out.Checks = sortedChecks(all)
	out.Entity.ChecksCount, out.Entity.DossierRev = len(all), out.Entity.DossierRev+int64(len(batches))
	out.Reviews = slices.Clone(out.Reviews)
	for i := range out.Reviews {
		out.Reviews[i].ChecksCount += laterOn(out.Reviews[i].ID, batches)
	}
	return out
}

// laterOn counts the checks of the batches linked to review id.
func laterOn(id int64, batches [][]domain.Check) int {
	n := 0
	for _, b := range batches {
		for _, c := range b {
			if c.ReviewID != nil && *c.ReviewID == id {
				n++
			}
		}
	}
	return n
}

// addLaterChecks writes the batches of checks (and their evidence) of the
// entity of d, created already, a transaction each, adding its checks to
// the entity's count and the intake review's and moving the dossier's
// revision (d follows all three). It returns the checks written, in order,
// and the first error.
func (s *Store) addLaterChecks(ctx context.Context, d *domain.EntityDetail, batches [][]domain.Check) ([]domain.Check, error) {
	e := &d.Entity
	var written []domain.Check
	for _, batch := range batches {
		tx := s.db.WriteTx()
		for _, c := range batch {
			tx.Put(s.table(schema.Checks).Put(newCheckItem(c)).If("attribute_not_exists(check_id)"))
		}
		s.addEvidencePuts(tx, batch, retainedFields{})
		tx.Update(nextDossierRev(s.table(schema.Entities).Update("account_id", e.AccountID).Range("entity_id", e.ID)).
			Add("checks_count", len(batch)).If("attribute_exists(entity_id)"))
		for _, r := range d.Reviews {
			if n := laterOn(r.ID, [][]domain.Check{batch}); n > 0 {
				tx.Update(s.table(schema.Reviews).Update("account_id", e.AccountID).Range("review_id", r.ID).
					Add("checks_count", n).If("attribute_exists(review_id)"))
			}
		}
		tx.IdempotentWithToken(newToken())
		if err := tx.Run(ctx); err != nil {
			return written, wrap(err, "checks of entity %d", e.ID)
		}
		written = append(written, batch...)
		e.ChecksCount += len(batch)
		e.DossierRev++
		for i := range d.Reviews {
			d.Reviews[i].ChecksCount += laterOn(d.Reviews[i].ID, [][]domain.Check{batch})
		}
	}
	return written, nil
}
