package admin

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// The records bucket (shared/auditexport): what audit.verify and
// evidence.get check DynamoDB against, and what audit.export fills.

// LockedView is a chain, or a check's evidence, against its locked copies
// in the records bucket. Checked is false where no records bucket is
// configured.
type LockedView struct {
	Checked bool `json:"checked"`
	// Locked counts the records (or bodies) with a locked copy;
	// LockedThrough is the last locked record's seq.
	Locked        int   `json:"locked"`
	LockedThrough int64 `json:"locked_through,omitempty"`
	// NotYetLocked are records after the last locked one: the streams
	// lock each within a minute of its commit, audit.export at once.
	NotYetLocked int              `json:"not_yet_locked"`
	Findings     []verify.Finding `json:"findings"`
	// Expired counts the records gone from DynamoDB under retention, on
	// ExpiredOn, as the locked closure record (Closure) dates it.
	Expired   int    `json:"expired,omitempty"`
	ExpiredOn string `json:"expired_on,omitempty"`
	Closure   string `json:"closure,omitempty"`
	// Message says it for a person.
	Message string `json:"message,omitempty"`
}

// lockedChain compares a chain with its locked copies (nil when there is
// no records bucket to compare with).
func (h *Handler) lockedChain(ctx context.Context, ch auditchain.Chain) (*LockedView, error) {
	if h.Records == nil {
		return &LockedView{Findings: []verify.Finding{}}, nil
	}
	held, err := h.entityHeld(ctx, ch.AccountID, ch.EntityID)
	if err != nil {
		return nil, err
	}
	m, err := verify.ReadManifests(ctx, h.Records, ch.AccountID, h.Clock.Now())
	if err != nil {
		return nil, err
	}
	cmp, err := verify.Chain(ctx, h.Records, ch, verify.Retention{Now: h.Clock.Now(), Held: held, Closures: h.closures(), Manifests: &m})
	if err != nil {
		return nil, err
	}
	// The manifests' own findings (a gap, an object listed and gone) are
	// the account's: every chain's verification names them.
	findings := append(cmp.Findings, m.Findings...)
	v := &LockedView{Checked: true, Locked: cmp.Locked, LockedThrough: cmp.LockedThrough, NotYetLocked: cmp.NotYetLocked, Findings: findings,
		Expired: cmp.Expired, ExpiredOn: cmp.ExpiredOn, Closure: cmp.Closure}
	if cmp.Expired > 0 {
		v.Message = fmt.Sprintf("%d record(s) expired under retention on %s: entity %d's relationship ended, as its locked closure record %s says",
			cmp.Expired, cmp.ExpiredOn, ch.EntityID, cmp.Closure)
	}
	return v, nil
}

// closures is the rule for believing a locked closure record: the rule
// every decision's record counts by, judged by what the account's locked
// chain recorded (its passkeys, and whether it accepted declared decisions
// at the closure's time), never by the account's item as it stands.
func (h *Handler) closures() verify.Closures {
	return verify.Closures{Passkeys: h.Passkeys}
}

// entityHeld says whether a legal hold stands on the entity.
func (h *Handler) entityHeld(ctx context.Context, accountID, entityID int64) (bool, error) {
	holds, err := h.Store.LegalHolds(ctx, accountID)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(holds, func(x domain.LegalHold) bool { return x.EntityID == entityID }), nil
}

// lockedTrace says whether the records bucket holds anything of the chain:
// a trail removed from DynamoDB whole is still one to verify.
func (h *Handler) lockedTrace(ctx context.Context, accountID, entityID int64) (bool, error) {
	if h.Records == nil {
		return false, nil
	}
	keys, err := h.Records.List(ctx, recordslayout.ChainPrefix(accountID, entityID))
	if err != nil || len(keys) > 0 {
		return len(keys) > 0, err
	}
	// Every copy gone too: the manifests still name its head.
	m, err := verify.ReadManifests(ctx, h.Records, accountID, h.Clock.Now())
	_, named := m.Heads[entityID]
	return named, err
}

// lockedEvidence compares a check's evidence with its locked bodies.
func (h *Handler) lockedEvidence(ctx context.Context, ev domain.Evidence) (*LockedView, error) {
	if h.Records == nil {
		return &LockedView{Findings: []verify.Finding{}}, nil
	}
	locked, findings, err := verify.Evidence(ctx, h.Records, ev)
	if err != nil {
		return nil, err
	}
	v := &LockedView{Checked: true, Findings: findings}
	if v.Findings == nil {
		v.Findings = []verify.Finding{}
	}
	if locked && len(findings) == 0 {
		v.Locked = 1
	} else if !locked {
		v.NotYetLocked = 1
	}
	return v, nil
}

// evidenceGone says why a check has no evidence in DynamoDB: expired under
// retention, as the entity's locked closure record (end_relationship, in
// the records bucket, which no one can rewrite) dates it and no legal hold
// stands; or gone while it should be kept, with its locked copy to show —
// or the store's own not-found when neither can be told.
func (h *Handler) evidenceGone(ctx context.Context, accountID, checkID int64, notFound error) error {
	if h.Records == nil {
		return notFound
	}
	chk, err := h.Store.Check(ctx, accountID, checkID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		// The check is gone too: with the rest of its entity under
		// retention, or removed; the entity's audit.verify tells which.
		keys, err := h.Records.List(ctx, recordslayout.EvidencePrefix(accountID, checkID))
		if err != nil || len(keys) == 0 {
			return notFound
		}
		return domain.Errorf(domain.ECodeNotFound, "Check %d is gone from DynamoDB, its evidence with it; its locked copy is %s in the records bucket. "+
			"audit.verify of its entity tells whether it expired under retention.", checkID, keys[0])
	} else if err != nil {
		return err
	}
	until, ended, err := verify.LockedClosure(ctx, h.Records, accountID, chk.EntityID, h.closures())
	if err != nil {
		return err
	}
	held, err := h.entityHeld(ctx, accountID, chk.EntityID)
	if err != nil {
		return err
	}
	if ended && !held && !h.Clock.Now().Before(until) {
		return domain.Errorf(domain.ECodeNotFound, "The evidence of check %d expired under retention on %s: entity %d's relationship ended, as its locked closure record says.",
			checkID, until.UTC().Format(time.DateOnly), chk.EntityID)
	}
	keys, err := h.Records.List(ctx, recordslayout.EvidencePrefix(accountID, checkID))
	if err != nil || len(keys) == 0 {
		return notFound
	}
	why := "before its retention ended"
	if held {
		why = "while a legal hold stands"
	}
	return domain.Errorf(domain.ECodeNotFound, "The evidence of check %d is gone from DynamoDB %s; its locked copy is %s in the records bucket.", checkID, why, keys[0])
}

// AuditExportView is audit.export's answer: the daily run, now, for one
// account (the manifest it wrote) or for all.
type AuditExportView struct {
	Accounts  int `json:"accounts"`
	Heads     int `json:"heads"`
	CaughtUp  int `json:"caught_up"`
	Manifests int `json:"manifests"`
	// Manifest is the one account's manifest, when one was named.
	Manifest *recordslayout.Manifest `json:"manifest,omitempty"`
	// ManifestKey is where it is in the records bucket.
	ManifestKey string `json:"manifest_key,omitempty"`
}

// auditExport runs the records' daily part now: every record the streams
// have not locked yet is locked, and the account's manifest written. What
// the streams still carry is locked by them, or by this, whichever comes
// first: once it answers, every record committed before it is locked.
func (h *Handler) auditExport(ctx context.Context, c *call) (any, error) {
	id, err := h.exporterAccount(ctx, c)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		res, err := h.Exporter.RunDaily(ctx)
		if err != nil {
			return nil, err
		}
		return AuditExportView{Accounts: res.Accounts, Heads: res.Heads, CaughtUp: res.CaughtUp, Manifests: res.Manifests}, nil
	}
	m, key, err := h.Exporter.RunAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	return AuditExportView{Accounts: 1, Heads: len(m.Heads), CaughtUp: len(m.Written), Manifests: 1, Manifest: &m, ManifestKey: key}, nil
}
