package auditexport

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// Locker keeps write-once objects (records.S3 on AWS, records.Dir
// locally): PutUntil writes a key once, locked to the date it names; a
// second Put of the same bytes is existed, of other bytes an error
// wrapping records.ErrDiffers. ListLocked dates each key by the newest
// version holding the record's bytes, Renew writes a record again as a new
// version, locked to a later date (records.S3 says more).
type Locker interface {
	PutUntil(ctx context.Context, key string, body []byte, ret records.Retention) (existed bool, err error)
	Get(ctx context.Context, key string) (records.Object, error)
	List(ctx context.Context, prefix string) ([]string, error)
	ListLocked(ctx context.Context, prefix string) ([]records.Locked, error)
	Renew(ctx context.Context, key string, ret records.Retention) (sha256 string, err error)
}

// Source reads what is exported: the streams' images, and, for the daily
// run, the accounts, their chains' heads and a chain's records, and what
// says how long an entity's records are kept (*store.Store has it).
type Source interface {
	// No codes; ok is false for an image that is no chained record.
	AuditLinkFromImage(img map[string]events.DynamoDBAttributeValue) (auditchain.Link, bool, error)
	// No codes.
	EvidenceFromImage(img map[string]events.DynamoDBAttributeValue) (domain.Evidence, error)
	// No codes.
	ListAccounts(ctx context.Context) ([]domain.Account, error)
	// No codes.
	AuditHeads(ctx context.Context, accountID int64) ([]auditchain.ChainHead, error)
	// No codes.
	ChainRecords(ctx context.Context, accountID, entityID int64) ([]auditchain.Link, error)
	// No codes. want is the entity's ChecksCount (0: what the index shows).
	EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	// not_found: nothing is kept for the check.
	Evidence(ctx context.Context, accountID, checkID int64) (domain.Evidence, error)
	// not_found: no such entity (expired, or never created).
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// not_found: no such check.
	Check(ctx context.Context, accountID, id int64) (domain.Check, error)
	// No codes.
	LegalHolds(ctx context.Context, accountID int64) ([]domain.LegalHold, error)
	// not_found: no such account.
	Account(ctx context.Context, id int64) (domain.Account, error)
}

// BlobStore is the evidence blob store, which keeps the bodies too large
// for their item: read to lock one, deleted when its item expired.
type BlobStore interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Exporter writes records into the records bucket.
type Exporter struct {
	Source  Source
	Records Locker
	// Blobs holds the bodies too large for their evidence item (nil: none
	// are read, and such a body is a failure to retry).
	Blobs BlobStore
	Clock domain.Clock
	// Passkeys is the relying party of the operators' passkeys: a locked
	// closure record is believed when signed with one (verify.Closures).
	Passkeys passkey.Config
}

// HandleStream exports each new or changed audit record and evidence item
// of a batch from either table's stream. A record already locked with the
// same bytes is done; one whose DynamoDB item now says something else than
// its locked copy was rewritten there: it is logged as such (the locked
// copy stands, verification names it) and the batch goes on. Any other
// failure stops the batch at that record, for Lambda to retry it and what
// follows (and, past its retries, to send it to the failure queue).
func (x *Exporter) HandleStream(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	log := logging.From(ctx)
	written, kept := 0, 0
	rs := map[int64]*retention{} // by account
	for _, rec := range ev.Records {
		if rec.EventName == string(events.DynamoDBOperationTypeRemove) {
			// A removal is what verification finds against the locked
			// copy; an evidence item's expiry takes its large body along.
			if err := x.expired(ctx, rec); err != nil {
				log.Error("expired evidence body not deleted", "event_id", rec.EventID, "sequence_number", rec.Change.SequenceNumber, "error", err.Error())
				return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: rec.Change.SequenceNumber}}}, nil
			}
			continue
		}
		if rec.Change.NewImage == nil {
			continue
		}
		key, existed, err := x.exportImage(ctx, rs, rec.Change.NewImage)
		switch {
		case errors.Is(err, records.ErrDiffers):
			log.Error("a record was rewritten in DynamoDB: its locked copy differs", "key", key,
				"event_id", rec.EventID, "event", rec.EventName)
			continue
		case err != nil:
			log.Error("record export failed", "key", key, "event_id", rec.EventID, "sequence_number", rec.Change.SequenceNumber, "error", err.Error())
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: rec.Change.SequenceNumber}}}, nil
		case key == "":
		case existed:
			kept++
		default:
			written++
		}
	}
	log.Info("records exported", "records", len(ev.Records), "written", written, "already_locked", kept)
	return events.DynamoDBEventResponse{}, nil
}

// expired deletes the large body of an evidence item DynamoDB's TTL
// removed (its retention over): the removal's identity is DynamoDB's own
// service. A removal by anyone else deletes nothing: verification names
// it against the locked copy.
func (x *Exporter) expired(ctx context.Context, rec events.DynamoDBEventRecord) error {
	id := rec.UserIdentity
	if id == nil || id.Type != "Service" || id.PrincipalID != "dynamodb.amazonaws.com" {
		return nil
	}
	if _, ok := rec.Change.OldImage["check_id"]; !ok {
		return nil // an audit record's expiry: nothing beside it
	}
	e, err := x.Source.EvidenceFromImage(rec.Change.OldImage)
	if err != nil || e.BodyKey == "" {
		return err
	}
	if x.Blobs == nil {
		return errors.New("an expired evidence body in the blob store, and no blob store to delete it from")
	}
	if err := x.Blobs.Delete(ctx, e.BodyKey); err != nil {
		return err
	}
	logging.From(ctx).Info("expired evidence body deleted", "account_id", e.AccountID, "check_id", e.CheckID, "key", e.BodyKey)
	return nil
}

// exportImage locks what one image holds: an audit record (heads and
// records from before the chain are nothing to lock: key "") or an
// evidence body, each dated by its account's retention (rs, one per
// account a batch). The two tables' items are told apart by their keys.
func (x *Exporter) exportImage(ctx context.Context, rs map[int64]*retention, img map[string]events.DynamoDBAttributeValue) (string, bool, error) {
	of := func(accountID int64) *retention {
		if rs[accountID] == nil {
			rs[accountID] = x.newRetention(accountID)
		}
		return rs[accountID]
	}
	if _, ok := img["check_id"]; ok {
		e, err := x.Source.EvidenceFromImage(img)
		if err != nil {
			return "", false, err
		}
		// The check names the entity whose rule dates its evidence; one
		// not found is kept as the account's own records are.
		chk, err := x.Source.Check(ctx, e.AccountID, e.CheckID)
		if err != nil && domain.ErrorCode(err) != domain.ECodeNotFound {
			return "", false, fmt.Errorf("check %d: %w", e.CheckID, err)
		}
		return x.exportEvidence(ctx, of(e.AccountID), chk.EntityID, e)
	}
	l, ok, err := x.Source.AuditLinkFromImage(img)
	if err != nil || !ok {
		return "", false, err
	}
	return x.lockLink(ctx, of(l.AccountID), l)
}

// lockLink locks an audit record as its canonical form, the bytes hashed,
// dated by r; key "" for one that no longer matches its hash, which
// locking would vouch for. A closure record, once locked, may end its
// trail's keeping: renewClosed then locks the trail to its end.
func (x *Exporter) lockLink(ctx context.Context, r *retention, l auditchain.Link) (string, bool, error) {
	key := recordslayout.RecordKey(l.AccountID, l.EntityID, l.Seq)
	if sum, err := auditchain.Sum(l); err != nil || sum != l.Hash {
		logging.From(ctx).Error("audit record does not match its hash: not locked", "key", key, "action_id", l.ActionID)
		return "", false, nil
	}
	now := x.Clock.Now()
	lock, err := r.lockFor(ctx, l.EntityID, now)
	if err != nil {
		return key, false, err
	}
	existed, err := x.Records.PutUntil(ctx, key, auditchain.Canonical(l), lock)
	if err == nil && l.Action == string(domain.ActionEndRelationship) && l.EntityID != 0 {
		// Again on a retry: what a failed attempt left is finished.
		err = x.renewClosed(ctx, r, l.EntityID, now)
	}
	return key, existed, err
}

// exportEvidence locks a provider's answer under its hash, dated by its
// entity's retention: the item's body, or the evidence blob store's object
// for a large one. A body that no longer hashes to what was recorded on
// receipt is not locked as if it were.
func (x *Exporter) exportEvidence(ctx context.Context, r *retention, entityID int64, e domain.Evidence) (string, bool, error) {
	key := recordslayout.EvidenceKey(e.AccountID, e.CheckID, e.SHA256)
	if e.BodyKey != "" {
		if x.Blobs == nil {
			return key, false, errors.New("evidence body in the blob store, and no blob store to read it")
		}
		body, err := x.Blobs.Get(ctx, e.BodyKey)
		if err != nil {
			return key, false, fmt.Errorf("read evidence body %s: %w", e.BodyKey, err)
		}
		e.Body = body
	}
	if ok, got := e.Verify(); !ok {
		// The locked copy would carry a hash the body does not have: leave
		// the key empty, for verification to find the item altered.
		logging.From(ctx).Error("evidence body does not match its recorded hash: not locked", "account_id", e.AccountID,
			"check_id", e.CheckID, "recorded_sha256", e.SHA256, "computed_sha256", got)
		return "", false, nil
	}
	// A check has one answer: another body locked for it already means
	// this one is a rewrite (a new key, as the hash is in it), which must
	// not stand beside the original as if genuine.
	held, err := x.Records.List(ctx, recordslayout.EvidencePrefix(e.AccountID, e.CheckID))
	if err != nil {
		return key, false, err
	}
	for _, k := range held {
		if k != key {
			return key, false, fmt.Errorf("check %d's evidence is locked already as %s: %w", e.CheckID, k, records.ErrDiffers)
		}
	}
	lock, err := r.lockFor(ctx, entityID, x.Clock.Now())
	if err != nil {
		return key, false, err
	}
	existed, err := x.Records.PutUntil(ctx, key, e.Body, lock)
	return key, existed, err
}
