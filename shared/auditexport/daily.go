package auditexport

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// sinceMargin is how far before the run before a head's move still counts
// as since it: a head moved while that run read the heads is looked at
// again rather than missed.
const sinceMargin = time.Hour

// DailyResult counts what a daily run did.
type DailyResult struct {
	Accounts int `json:"accounts"`
	// Heads are the chain heads that moved since each account's run before.
	Heads int `json:"heads"`
	// CaughtUp are the records the streams had not locked, locked now.
	CaughtUp int `json:"caught_up"`
	// Manifests written.
	Manifests int `json:"manifests"`
	// Renewed are the locked copies written again to keep them locked.
	Renewed int `json:"renewed"`
}

// RunDaily writes, for every account, the records of each chain whose head
// moved since the account's last manifest that are not locked yet (the
// streams lock them within a minute: this catches what they missed), then
// the account's manifest. It is safe to run again at any time: it writes
// nothing twice, and a second manifest says what moved in between.
func (x *Exporter) RunDaily(ctx context.Context) (DailyResult, error) {
	var res DailyResult
	accounts, err := x.Source.ListAccounts(ctx)
	if err != nil {
		return res, fmt.Errorf("list accounts: %w", err)
	}
	var errs []error
	for _, a := range accounts {
		m, _, err := x.RunAccount(ctx, a.ID)
		res.Accounts++
		res.Heads += len(m.Heads)
		res.CaughtUp += len(m.Written)
		res.Renewed += len(m.Renewed)
		if err != nil {
			errs = append(errs, fmt.Errorf("account %d: %w", a.ID, err))
			continue
		}
		res.Manifests++
	}
	logging.From(ctx).Info("records daily run", "accounts", res.Accounts, "heads", res.Heads, "caught_up", res.CaughtUp,
		"manifests", res.Manifests, "renewed", res.Renewed, "errors", len(errs))
	return res, errors.Join(errs...)
}

// RunAccount is the daily run for one account (audit.export names one): the
// manifest it wrote, and its key.
func (x *Exporter) RunAccount(ctx context.Context, accountID int64) (recordslayout.Manifest, string, error) {
	now := x.Clock.Now().UTC()
	m := recordslayout.Manifest{Format: recordslayout.ManifestFormat, AccountID: accountID, RunAt: now.Format(time.RFC3339Nano), Heads: []recordslayout.ManifestHead{}, Written: []recordslayout.ManifestObject{}}
	since, prev, err := x.lastRun(ctx, accountID)
	if err != nil {
		return m, "", err
	}
	m.Previous = prev
	if !since.IsZero() {
		m.Since = since.Format(time.RFC3339Nano)
	}
	// Renewals first, whatever fails after: a record still needed whose
	// lock runs out is one the lifecycle takes. What failed is reported at
	// the end.
	r := x.newRetention(accountID)
	var renewErr error
	if renewErr = x.readHolds(ctx, r); renewErr == nil {
		m.Renewed, renewErr = x.renew(ctx, r, now)
	}
	if renewErr != nil {
		logging.From(ctx).Error("locked copies not renewed (the next run tries again)", "account_id", accountID, "error", renewErr.Error())
		renewErr = fmt.Errorf("renew locks: %w", renewErr)
	}
	if err := x.catchUpHeads(ctx, r, since, &m); err != nil {
		return m, "", errors.Join(renewErr, err)
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, "", errors.Join(renewErr, err)
	}
	key := recordslayout.ManifestKey(accountID, now)
	lock, err := r.lockFor(ctx, 0, now) // the account's own, as its chain
	if err == nil {
		_, err = x.Records.PutUntil(ctx, key, append(body, '\n'), lock)
	}
	if err != nil {
		return m, "", errors.Join(renewErr, fmt.Errorf("write manifest: %w", err))
	}
	return m, key, renewErr
}

// readHolds reads the account's legal holds into r: a held entity's
// records are kept, renewed, whatever its closure says.
func (x *Exporter) readHolds(ctx context.Context, r *retention) error {
	holds, err := x.Source.LegalHolds(ctx, r.account)
	if err != nil {
		return fmt.Errorf("legal holds: %w", err)
	}
	for _, h := range holds {
		r.held[h.EntityID] = true
	}
	return nil
}

// catchUpHeads locks, for each chain whose head moved since the run
// before (less a margin), what the streams missed of its records and of
// its entity's evidence, and names the head in m.
func (x *Exporter) catchUpHeads(ctx context.Context, r *retention, since time.Time, m *recordslayout.Manifest) error {
	heads, err := x.Source.AuditHeads(ctx, r.account)
	if err != nil {
		return err
	}
	slices.SortFunc(heads, func(a, b auditchain.ChainHead) int { return cmp.Compare(a.EntityID, b.EntityID) })
	now := x.Clock.Now()
	for _, h := range heads {
		if at, err := time.Parse(time.RFC3339Nano, h.At); err == nil && !since.IsZero() && at.Before(since.Add(-sinceMargin)) {
			continue
		}
		// The date a write now would lock the trail to: a verifier takes a
		// copy gone before it for removed, after it for expired.
		lock, err := r.lockFor(ctx, h.EntityID, now)
		if err != nil {
			return err
		}
		until := lock.Until.UTC().Format(time.RFC3339)
		m.Heads = append(m.Heads, recordslayout.ManifestHead{EntityID: h.EntityID, Seq: h.Seq, Hash: h.Hash, LastActionID: h.ActionID, At: h.At, KeepUntil: until})
		written, err := x.catchUp(ctx, r, h)
		m.Written = append(m.Written, dated(written, until)...)
		if err != nil {
			return err
		}
		written, err = x.catchUpEvidence(ctx, r, h.EntityID)
		m.Written = append(m.Written, dated(written, until)...)
		if err != nil {
			return err
		}
	}
	return nil
}

// dated gives each object the date its entity's copies are locked to.
func dated(objs []recordslayout.ManifestObject, until string) []recordslayout.ManifestObject {
	for i := range objs {
		objs[i].KeepUntil = until
	}
	return objs
}

// lastRun is the time of the account's newest manifest (zero: none) and
// the link the next manifest names it by: its key and the SHA-256 of its
// first version's bytes, the ones its lock keeps (nil: none).
func (x *Exporter) lastRun(ctx context.Context, accountID int64) (time.Time, *recordslayout.ManifestObject, error) {
	keys, err := x.Records.List(ctx, recordslayout.ManifestPrefix(accountID))
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("list manifests: %w", err)
	}
	if len(keys) == 0 {
		return time.Time{}, nil, nil
	}
	last := keys[len(keys)-1]
	name := strings.TrimSuffix(strings.TrimPrefix(last, recordslayout.ManifestPrefix(accountID)), ".json")
	t, err := time.Parse("20060102T150405Z", name)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("manifest %s: %w", last, err)
	}
	obj, err := x.Records.Get(ctx, last)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("read the manifest before, %s: %w", last, err)
	}
	return t, &recordslayout.ManifestObject{Key: last, SHA256: obj.SHA256}, nil
}

// catchUpEvidence locks the evidence of the entity's checks that has no
// locked body yet (the stream's retries and failure queue exhausted): one
// listing per check of an entity whose chain moved, the item read only
// when nothing is locked for it.
func (x *Exporter) catchUpEvidence(ctx context.Context, r *retention, entityID int64) ([]recordslayout.ManifestObject, error) {
	accountID := r.account
	if entityID == 0 {
		return nil, nil // the account's own chain has no checks
	}
	chks, err := x.Source.EntityChecks(ctx, accountID, entityID, 0)
	if err != nil {
		return nil, fmt.Errorf("checks of entity %d: %w", entityID, err)
	}
	var out []recordslayout.ManifestObject
	for _, c := range chks {
		keys, err := x.Records.List(ctx, recordslayout.EvidencePrefix(accountID, c.ID))
		if err != nil {
			return out, err
		}
		if len(keys) > 0 {
			continue
		}
		ev, err := x.Source.Evidence(ctx, accountID, c.ID)
		if domain.ErrorCode(err) == domain.ECodeNotFound {
			continue // no answer was kept for the check
		}
		if err != nil {
			return out, err
		}
		key, existed, err := x.exportEvidence(ctx, r, entityID, ev)
		if err != nil && !errors.Is(err, records.ErrDiffers) {
			return out, fmt.Errorf("lock evidence %s: %w", key, err)
		}
		if err == nil && key != "" && !existed {
			out = append(out, recordslayout.ManifestObject{Key: key, SHA256: ev.SHA256})
			logging.From(ctx).Warn("evidence locked by the daily run: the stream had not", "key", key)
		}
	}
	return out, nil
}

// catchUp locks the chain's records that have no locked copy yet: one
// listing of the chain's objects, and its records read only when one is
// missing.
func (x *Exporter) catchUp(ctx context.Context, r *retention, h auditchain.ChainHead) ([]recordslayout.ManifestObject, error) {
	accountID := r.account
	keys, err := x.Records.List(ctx, recordslayout.ChainPrefix(accountID, h.EntityID))
	if err != nil {
		return nil, fmt.Errorf("list chain %d: %w", h.EntityID, err)
	}
	locked := make(map[string]bool, len(keys))
	for _, k := range keys {
		locked[k] = true
	}
	missing := false
	for seq := int64(1); seq <= h.Seq; seq++ {
		if !locked[recordslayout.RecordKey(accountID, h.EntityID, seq)] {
			missing = true
			break
		}
	}
	if !missing {
		return nil, nil
	}
	links, err := x.Source.ChainRecords(ctx, accountID, h.EntityID)
	if err != nil {
		return nil, err
	}
	var out []recordslayout.ManifestObject
	for _, l := range links {
		key := recordslayout.RecordKey(accountID, h.EntityID, l.Seq)
		if locked[key] {
			continue
		}
		locked, existed, err := x.lockLink(ctx, r, l)
		if err != nil && !errors.Is(err, records.ErrDiffers) {
			return out, fmt.Errorf("lock record %s: %w", key, err)
		}
		if err == nil && locked != "" && !existed {
			out = append(out, recordslayout.ManifestObject{Key: key, SHA256: l.Hash})
			logging.From(ctx).Warn("record locked by the daily run: the stream had not", "key", key)
		}
	}
	return out, nil
}
