package admin

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/dossier"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/passkey"
)

// An account-wide listing holds at most 1,000 records: audit.list's limit
// is tagged so.

// auditList lists an entity's trail (entity_id, oldest first) or the
// account's (newest first, at most limit, default 100). An entity the
// account does not hold (another account's, or none) is NotFound, not an
// empty trail.
func (h *Handler) auditList(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"id"`
		EntityID  int64 `json:"entity_id" strict:"min=0"`
		Limit     int   `json:"limit" strict:"min=1,max=1000"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	if p.Limit == 0 { // left out; given, it is 1 to maxAudit (its tag)
		p.Limit = 100
	}
	var recs []domain.AuditRecord
	var err error
	if p.EntityID > 0 {
		recs, err = h.Store.AuditTrail(ctx, p.AccountID, p.EntityID)
		if err == nil && len(recs) == 0 {
			err = h.entityIn(ctx, p.AccountID, p.EntityID)
		}
	} else {
		recs, err = h.Store.AccountAudit(ctx, p.AccountID, p.Limit)
	}
	if err != nil {
		return nil, err
	}
	checks, err := passkey.CheckTrail(ctx, h.Store, h.Passkeys, p.AccountID, recs)
	if err != nil {
		return nil, err
	}
	out := make([]AuditView, 0, len(recs))
	for i, r := range recs {
		out = append(out, viewAudit(r, checks[i]))
	}
	return map[string]any{"audit": out}, nil
}

// AuditChainView is the check of one audit chain: the head it ends at (and
// the latest export), how many records it holds, and, when it fails, the
// first record (or the head or export) that breaks it.
type AuditChainView struct {
	AccountID int64 `json:"account_id"`
	EntityID  int64 `json:"entity_id"`
	Records   int   `json:"records"`
	// Trail is every record verified, in chain order, as hashed: the trail
	// to hand over is this one, not a listing (which a misfiled record
	// could leave out).
	Trail []AuditLinkView `json:"trail"`
	// Unchained counts the entity's records without a hash (written before
	// the chain existed; one dated after it began breaks the check).
	Unchained int             `json:"unchained"`
	Head      AuditHeadView   `json:"head"`
	Export    *AuditHeadView  `json:"export"`
	Intact    bool            `json:"intact"`
	Broken    *AuditBreakView `json:"broken,omitempty"`
	// Signatures is every decision signature in the chain, each checked
	// against its operator's public key as the account's own chain
	// recorded it (passkey.add); SignaturesValid is false if any fails.
	Signatures      []SignatureCheckView `json:"signatures"`
	SignaturesValid bool                 `json:"signatures_valid"`
	// Locked is the chain against its locked copies in the records bucket.
	Locked *LockedView `json:"locked"`
}

// AuditLinkView is one chained record as hashed (auditchain.Link): the
// before and after documents as stored.
type AuditLinkView struct {
	Seq              int64           `json:"seq"`
	At               string          `json:"at"`
	Action           string          `json:"action"`
	ActionID         string          `json:"action_id"`
	OperatorID       int64           `json:"operator_id"`
	OperatorName     string          `json:"operator_name"`
	Actor            string          `json:"actor,omitempty"`
	RequestID        string          `json:"request_id,omitempty"`
	SecondApproverID *int64          `json:"second_approver_id"`
	ReviewID         *int64          `json:"review_id"`
	Reason           string          `json:"reason"`
	Before           json.RawMessage `json:"before"`
	After            json.RawMessage `json:"after"`
	SeenETag         string          `json:"seen_etag,omitempty"`
	DossierETag      string          `json:"dossier_etag,omitempty"`
	DossierSHA256    string          `json:"dossier_sha256,omitempty"`
	Version          int             `json:"chain_v"`
	PrevHash         string          `json:"prev_hash"`
	Hash             string          `json:"hash"`
}

func viewLink(l auditchain.Link) AuditLinkView {
	raw := func(doc string) json.RawMessage {
		if json.Valid([]byte(doc)) {
			return json.RawMessage(doc)
		}
		b, _ := json.Marshal(doc) // an altered document shows as the string it is
		return b
	}
	return AuditLinkView{Seq: l.Seq, At: l.At, Action: l.Action, ActionID: l.ActionID, OperatorID: l.OperatorID,
		OperatorName: l.OperatorName, Actor: l.Actor, RequestID: l.RequestID, SecondApproverID: l.SecondApproverID,
		ReviewID: l.ReviewID, Reason: l.Reason, Before: raw(l.Before), After: raw(l.After), SeenETag: l.SeenETag,
		DossierETag: l.DossierETag, DossierSHA256: l.DossierSHA256, Version: l.Version, PrevHash: l.PrevHash, Hash: l.Hash}
}

// AuditHeadView is a chain's head, or its export (with the export's day).
type AuditHeadView struct {
	Seq          int64  `json:"seq"`
	Hash         string `json:"hash"`
	LastActionID string `json:"last_action_id,omitempty"`
	Day          string `json:"day,omitempty"`
}

// AuditBreakView is where a chain fails its check.
type AuditBreakView struct {
	ActionID string `json:"action_id,omitempty"`
	Seq      int64  `json:"seq,omitempty"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
}

// auditVerify recomputes one chain (entity_id; 0 or none: the account's
// own actions) from its records, read strongly, and checks it against its
// head and latest export. A broken chain is a result, not a failed
// command: intact is false and broken names where. An entity the account
// does not hold, with no trace of a chain, is NotFound: an empty chain
// that "holds" would vouch for nothing.
func (h *Handler) auditVerify(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"id"`
		EntityID  int64 `json:"entity_id" strict:"min=0"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	ch, err := h.Store.AuditChain(ctx, p.AccountID, p.EntityID)
	if err != nil {
		return nil, err
	}
	if p.EntityID > 0 && !chainTraced(ch) {
		// A trail removed from DynamoDB whole, its entity too, is still
		// one to verify while the records bucket holds its copies.
		locked, err := h.lockedTrace(ctx, p.AccountID, p.EntityID)
		if err != nil {
			return nil, err
		}
		if err := h.entityIn(ctx, p.AccountID, p.EntityID); err != nil && !locked {
			return nil, err
		}
	}
	v := AuditChainView{AccountID: p.AccountID, EntityID: p.EntityID, Records: len(ch.Records), Unchained: len(ch.Unchained),
		Head: AuditHeadView{Seq: ch.Head.Seq, Hash: ch.Head.Hash, LastActionID: ch.Head.ActionID}, Trail: []AuditLinkView{}}
	links := append([]auditchain.Link(nil), ch.Records...)
	sort.SliceStable(links, func(i, j int) bool { return links[i].Seq < links[j].Seq })
	for _, l := range links {
		v.Trail = append(v.Trail, viewLink(l))
	}
	if e := ch.Export; e != nil {
		v.Export = &AuditHeadView{Seq: e.Seq, Hash: e.Hash, LastActionID: e.ActionID, Day: e.Day}
	}
	if brk := ch.Verify(); brk != nil {
		v.Broken = &AuditBreakView{ActionID: brk.ActionID, Seq: brk.Seq, Reason: brk.Reason, Message: brk.Error()}
	}
	// Against the locked copies: what a consistent rewrite of DynamoDB
	// (hashes and head recomputed) leaves for the chain's own check.
	if v.Locked, err = h.lockedChain(ctx, ch); err != nil {
		return nil, err
	}
	if f := v.Locked.Findings; v.Broken == nil && len(f) > 0 {
		v.Broken = &AuditBreakView{ActionID: f[0].ActionID, Seq: f[0].Seq, Reason: f[0].Kind, Message: f[0].Message}
	}
	v.Intact = v.Broken == nil
	if v.Signatures, err = h.checkSignatures(ctx, p.AccountID, links); err != nil {
		return nil, err
	}
	v.SignaturesValid = true
	for _, s := range v.Signatures {
		v.SignaturesValid = v.SignaturesValid && s.Verified
	}
	return v, nil
}

// AuditDossierView is the dossier a decision was taken on, as its audit
// record keeps it, checked against the hash the chain covers.
type AuditDossierView struct {
	AccountID      int64  `json:"account_id"`
	ActionID       string `json:"action_id"`
	EntityID       int64  `json:"entity_id"`
	DossierETag    string `json:"dossier_etag"`
	DossierSHA256  string `json:"dossier_sha256"`
	Kept           bool   `json:"kept"`
	Markdown       string `json:"markdown,omitempty"`
	Verified       bool   `json:"verified"`
	ComputedSHA256 string `json:"computed_sha256,omitempty"`
}

// auditDossier answers the dossier a decision (action_id) was taken on: the
// Markdown its audit record keeps, with its hash recomputed. A Markdown that
// no longer matches is answered, not refused (verified false), as evidence
// is; the chain's check (audit.verify) vouches for the recorded hash.
func (h *Handler) auditDossier(ctx context.Context, c *call) (any, error) {
	var p struct {
		common
		AccountID int64  `json:"account_id" strict:"id"`
		ActionID  string `json:"action_id" text:"action id"`
	}
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if p.ActionID == "" {
		return nil, domain.Invalid("action_id", "name the decision's action id (audit --entity lists them)")
	}
	if err := freetext.Check("action_id", p.ActionID, freetext.ActionID, true); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	rec, err := h.Store.AuditRecord(ctx, p.AccountID, p.ActionID)
	if err != nil {
		return nil, err
	}
	if rec.DossierSHA256 == "" {
		return nil, domain.Errorf(domain.ECodeNotFound, "Action %s recorded no dossier: it is not a decision on an entity, or it predates dossier snapshots.", p.ActionID)
	}
	v := AuditDossierView{AccountID: rec.AccountID, ActionID: rec.ActionID, EntityID: rec.EntityID, DossierETag: rec.DossierETag,
		DossierSHA256: rec.DossierSHA256, Kept: rec.DossierMarkdown != "", Markdown: rec.DossierMarkdown}
	if v.Kept {
		v.ComputedSHA256 = dossier.SHA256(rec.DossierMarkdown)
		v.Verified = v.ComputedSHA256 == rec.DossierSHA256
	}
	return v, nil
}

// entityIn answers NotFound unless the account holds the entity: a filter
// naming another account's entity (or none) is refused, not answered with
// an empty trail that reads as "nothing happened".
func (h *Handler) entityIn(ctx context.Context, accountID, entityID int64) error {
	_, err := h.Store.Entity(ctx, accountID, entityID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.Errorf(domain.ECodeNotFound, "Entity %d not found in account %d%s.", entityID, accountID, domain.ShortIDHint(accountID, entityID))
	}
	return err
}

// chainTraced reports whether anything of a chain is stored: a record, a
// head or an export. One that is is verified whether or not its entity's
// item is there (a missing item must not hide a chain, broken or not).
func chainTraced(ch auditchain.Chain) bool {
	return len(ch.Records) > 0 || len(ch.Unchained) > 0 || len(ch.Misfiled) > 0 || len(ch.Exports) > 0 ||
		ch.Export != nil || ch.Head != (auditchain.Head{})
}
