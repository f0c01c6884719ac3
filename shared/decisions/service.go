package decisions

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
	"github.com/evs-kyb/evs/shared/passkey"
)

// Store is what decisions read and write.
type Store interface {
	// not_found: no such account.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// not_found: no such operator in the account.
	Operator(ctx context.Context, accountID, id int64) (domain.Operator, error)
	// not_found: no such review in the account.
	Review(ctx context.Context, accountID, id int64) (domain.Review, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// No codes. want is the entity's ReviewsCount: the listing waits, briefly,
	// for an index to show that many.
	EntityReviews(ctx context.Context, accountID, entityID int64, want int) ([]domain.Review, error)
	// No codes. want is the entity's ChecksCount, as for EntityReviews.
	EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	// No codes; domain.ErrStale if the entity's dossier moved past the
	// revision read.
	Dossier(ctx context.Context, e domain.Entity) (domain.EntityDetail, error)
	// not_found: the account has not configured the country.
	CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	// No codes.
	ReserveCheckIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	ReservePartyIDs(ctx context.Context, accountID int64, n int) ([]int64, error)
	// No codes; domain.ErrStale if the review or the entity changed since read,
	// domain.ErrDuplicateAction if the action id was applied before.
	ApplyDecision(ctx context.Context, d domain.Decision) error
	// not_found: the action was never applied.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
	// A four-eyes decision waits for its second operator; the write spends
	// the maker's signature (maker; nil when declared).
	// domain.ErrSignatureUsed when it was used or ended meanwhile.
	AwaitApproval(ctx context.Context, p domain.PendingApproval, maker *domain.SignatureUse) error
	// not_found: no decision waits under this action id.
	PendingApproval(ctx context.Context, accountID int64, actionID string) (domain.PendingApproval, error)
	// No codes: every item of an entity whose relationship ended dated.
	ExpireEntity(ctx context.Context, ent domain.Entity, written ...string) (int, error)
}

// Checker re-runs an entity's checks (queue_checks).
type Checker interface {
	Intake(ctx context.Context, in checks.IntakeInput) domain.EntityDetail
}

// Service carries out operator actions.
type Service struct {
	Store   Store
	Checker Checker
	// Clock stamps the changes and the audit record (required).
	Clock domain.Clock
	// Countries renders the dossier whose ETag a decision is bound to: it
	// must be the API's catalogue, or the tags differ (country.ISO() if nil).
	Countries *country.Catalogue
	// Signatures checks the passkey signatures of decisions and approvals;
	// nil refuses every signed one as a fault (declared decisions only).
	Signatures Signatures
}

// Request is one operator action, as the state machine and the command
// line send it.
type Request struct {
	Action    domain.Action `json:"action"`
	AccountID int64         `json:"account_id" strict:"id"`
	// EntityID is the review's entity. A signed decision names it, so its
	// document names the entity its record is filed under (a document of
	// one entity's decision then counts for no other's); given unsigned,
	// it must be the review's too.
	EntityID   int64 `json:"entity_id,omitempty" strict:"id"`
	ReviewID   int64 `json:"review_id" strict:"id"`
	OperatorID int64 `json:"operator_id" strict:"id"`
	// ActionID identifies the action (the execution or request id): the
	// same id is applied once.
	ActionID string `json:"action_id"`
	// Reason says why: required, optional or not taken, per action (the
	// rules' table); free text (freetext.Reason).
	Reason string `json:"reason,omitempty"`
	// Per action: an action refuses another's fields.
	AssigneeID      int64   `json:"assignee_id,omitempty" strict:"id"`
	RiskLevel       string  `json:"risk_level,omitempty"`
	MatchID         string  `json:"match_id,omitempty"`
	Verdict         string  `json:"verdict,omitempty"`
	WebsiteURL      *string `json:"website_url,omitempty"`
	SocialURL       *string `json:"social_url,omitempty"`
	ActivitySummary *string `json:"business_activity_summary,omitempty"`
	// record_party's (domain.FieldParty…): what is done to which party,
	// and the facts given; a correction changes only those given.
	PartyOp          string  `json:"party_op,omitempty"`
	PartyID          int64   `json:"party_id,omitempty" strict:"id"`
	PartyKind        string  `json:"party_kind,omitempty"`
	PartyName        *string `json:"party_name,omitempty"`
	PartyRoles       *string `json:"party_roles,omitempty"`
	PartyShares      *int64  `json:"party_shares,omitempty"`
	PartyIDType      *string `json:"party_identity_type,omitempty"`
	PartyIDNumber    *string `json:"party_identity_number,omitempty"`
	PartyNationality *string `json:"party_nationality,omitempty"`
	PartyBirthDate   *string `json:"party_birth_date,omitempty"`
	PartySource      string  `json:"party_source,omitempty"`
	PartyControls    *bool   `json:"party_controls,omitempty"`
	// Signature is the operator's passkey assertion over the request's
	// decision document (DecisionDocument: the request without this
	// field). Required unless the account accepts declared decisions.
	Signature *passkey.Assertion `json:"signature,omitempty"`
	// Actor is the execution's ARN, RequestID the invocation's id: the
	// audit record keeps both, as an admin command's does. Set by Handle
	// from the task, never by the request.
	Actor     string `json:"-"`
	RequestID string `json:"-"`
	// Seen is the ETag of the entity's Markdown (its dossier: GET
	// /api/v1/entities/{id}) the operator decided on. When given, the
	// action is refused with StaleView if the dossier has changed since.
	Seen string `json:"seen,omitempty"`
}

// Validation is a request found legal, and whether it needs a second approver.
type Validation struct {
	Request
	RequiresSecondApproval bool `json:"requires_second_approval"`
}

// state is what an action is decided on.
type state struct {
	account  domain.Account
	operator domain.Operator
	review   domain.Review
	entity   domain.Entity
}

// Validate checks that the operator may take the action on the review as it
// stands, and says whether a second approver is needed. It writes nothing.
func (s *Service) Validate(ctx context.Context, req Request) (Validation, error) {
	if err := CheckRequest(req); err != nil {
		return Validation{}, err
	}
	st, err := s.load(ctx, req)
	if err != nil {
		return Validation{}, err
	}
	if _, err := s.identify(ctx, req, st, nil); err != nil {
		return Validation{}, err
	}
	if err := s.check(ctx, req, st); err != nil {
		return Validation{}, err
	}
	// Refused here already, so a stale view never waits for a second
	// approver; Apply compares again, as the dossier may change meanwhile.
	if err := seenCurrent(req, st); err != nil {
		return Validation{}, err
	}
	return Validation{Request: req, RequiresSecondApproval: requiresFourEyes(st, req)}, nil
}

func (s *Service) load(ctx context.Context, req Request) (state, error) {
	var st state
	var err error
	if st.account, err = s.Store.Account(ctx, req.AccountID); err != nil {
		return state{}, notFound(err, "account %d", req.AccountID)
	}
	if st.operator, err = s.Store.Operator(ctx, req.AccountID, req.OperatorID); err != nil {
		return state{}, notFound(err, "operator %d in account %d", req.OperatorID, req.AccountID)
	}
	if st.review, err = s.Store.Review(ctx, req.AccountID, req.ReviewID); err != nil {
		return state{}, notFound(err, "review %d in account %d%s", req.ReviewID, req.AccountID, domain.ShortIDHint(req.AccountID, req.ReviewID))
	}
	if req.EntityID != 0 && req.EntityID != st.review.EntityID {
		return state{}, domain.Invalid("entity_id", fmt.Sprintf("names entity %d, but review %d is of entity %d", req.EntityID, req.ReviewID, st.review.EntityID))
	}
	if st.entity, err = s.Store.Entity(ctx, req.AccountID, st.review.EntityID); err != nil {
		return state{}, fmt.Errorf("entity of review %d: %w", req.ReviewID, err)
	}
	return st, nil
}

func notFound(err error, format string, args ...any) error {
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.Errorf(domain.ECodeNotFound, "no "+format, args...)
	}
	return err
}

// check applies the transition table, each action's own conditions and
// the decision policy (policy.go).
func (s *Service) check(ctx context.Context, req Request, st state) error {
	r, _ := ruleOf(req.Action) // load refused anything else
	if !st.operator.Can(r.permission) {
		return domain.Errorf(domain.ECodeForbidden, "operator %d (%s) lacks the %s permission needed to %s", st.operator.ID, st.operator.Name, r.permission, req.Action)
	}
	if !allowedFrom(r, st.review.Status) {
		return domain.Errorf(domain.ECodeIllegalTransition, "cannot %s review %d: it is %s (allowed from %v)", req.Action, st.review.ID, st.review.Status, r.from)
	}
	switch req.Action {
	case domain.ActionAssign:
		assignee, err := s.Store.Operator(ctx, req.AccountID, req.AssigneeID)
		if err != nil {
			return notFound(err, "operator %d in account %d to assign", req.AssigneeID, req.AccountID)
		}
		if !assignee.Can(domain.PermReviewDecide) {
			return domain.Errorf(domain.ECodeBadRequest, "operator %d (%s) cannot decide reviews (no %s permission)", assignee.ID, assignee.Name, domain.PermReviewDecide)
		}
		if st.review.AssignedUserID != nil && *st.review.AssignedUserID == req.AssigneeID {
			return domain.Errorf(domain.ECodeIllegalTransition, "review %d is already assigned to operator %d", st.review.ID, req.AssigneeID)
		}
	case domain.ActionApprove:
		return s.approvePolicy(ctx, req, st)
	case domain.ActionEscalateToAML:
		if st.review.Escalation != nil && *st.review.Escalation == domain.EscalationAML {
			return domain.Errorf(domain.ECodeIllegalTransition, "review %d is already escalated to AML", st.review.ID)
		}
	case domain.ActionAdjudicateMatch:
		if _, err := s.latestScreening(ctx, st, req.MatchID); err != nil {
			return err
		}
	case domain.ActionEndRelationship:
		if e := st.entity.RelationshipEndedAt; e != nil {
			return domain.Errorf(domain.ECodeIllegalTransition, "the relationship with entity %d ended on %s", st.entity.ID, domain.FormatTime(*e))
		}
	case domain.ActionOpenPeriodicReview:
		switch st.entity.Status {
		case domain.EntityApproved, domain.EntityOnboarded, domain.EntityUnderMonitoring:
		default:
			return domain.Errorf(domain.ECodeIllegalTransition, "entity %d is %s: periodic reviews are for approved, onboarded or monitored entities", st.entity.ID, st.entity.Status)
		}
		reviews, err := s.Store.EntityReviews(ctx, req.AccountID, st.entity.ID, st.entity.ReviewsCount)
		if err != nil {
			return err
		}
		for _, r := range reviews {
			if r.Status.Active() {
				return domain.Errorf(domain.ECodeIllegalTransition, "entity %d already has an active review (%d)", st.entity.ID, r.ID)
			}
		}
	}
	return nil
}

func validRisk(l string) bool {
	for _, r := range domain.RiskLevels() {
		if string(r) == l {
			return true
		}
	}
	return false
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\n")
}

// requiresFourEyes reports whether the account wants a second approver.
// Where it wants one to approve a high-risk entity (approve_high_risk), it
// wants one to lower a high risk too: else the maker would assess the risk
// lower alone and then approve alone.
// FourEyes reports whether the account asks a second operator's signed
// approval for req on the entity as it stands: what Validate answers as
// RequiresSecondApproval, for a page that says so before anyone signs.
func FourEyes(acct domain.Account, ent domain.Entity, req Request) bool {
	return requiresFourEyes(state{account: acct, entity: ent}, req)
}

func requiresFourEyes(st state, req Request) bool {
	for _, f := range st.account.Settings.FourEyes {
		if f == string(req.Action) {
			return true
		}
		if f != domain.FourEyesApproveHighRisk {
			continue
		}
		if req.Action == domain.ActionApprove && st.entity.Risk != nil && st.entity.Risk.Level == domain.RiskHigh {
			return true
		}
		if lowersHighRisk(req, st) {
			return true
		}
	}
	return false
}

// latestScreening is the screening whose match an adjudication judges:
// the newest completed screening of the entity, or of a party, that lists
// matchID (screeningWith); without one, the entity's own.
func (s *Service) latestScreening(ctx context.Context, st state, matchID string) (domain.Check, error) {
	cs, err := s.Store.EntityChecks(ctx, st.review.AccountID, st.entity.ID, st.entity.ChecksCount)
	if err != nil {
		return domain.Check{}, err
	}
	if len(subjectScreenings(cs)) == 0 {
		return domain.Check{}, domain.Errorf(domain.ECodeIllegalTransition, "entity %d has no completed screening to adjudicate", st.entity.ID)
	}
	c, ok := screeningWith(cs, matchID)
	if !ok {
		return domain.Check{}, domain.Errorf(domain.ECodeBadRequest, "match %q is not among the latest screenings' matches (the entity's and its parties')", matchID)
	}
	return c, nil
}

// Apply carries out the action: it validates it again against the records
// as they are now (the maker's signature included), requires the second
// operator's signed approval where the account asks for four eyes now —
// whatever Validate found — and writes the change with its audit record,
// consuming the signatures. The same action id applied again changes
// nothing and returns the review as it stands. It returns the review acted
// on (for open_periodic_review, the new review). approval is the second
// operator's answer, nil when none was given.
//
// With the review it returns the action's audit record (the one found
// when it was applied already): what it changed, for whoever asked.
func (s *Service) Apply(ctx context.Context, req Request, approval *Approval) (domain.Review, domain.AuditRecord, error) {
	if err := CheckRequest(req); err != nil { // before the replay's lookup, too
		return domain.Review{}, domain.AuditRecord{}, err
	}
	if rec, err := s.Store.AuditRecord(ctx, req.AccountID, req.ActionID); err == nil {
		r, err := s.replay(ctx, rec)
		return r, rec, err
	}
	st, err := s.load(ctx, req)
	if err != nil {
		return domain.Review{}, domain.AuditRecord{}, err
	}
	spent, err := s.spentBy(ctx, req)
	if err != nil {
		return domain.Review{}, domain.AuditRecord{}, err
	}
	who, second, err := s.authorize(ctx, req, st, approval, spent)
	if err != nil {
		return domain.Review{}, domain.AuditRecord{}, err
	}
	d, result, err := s.signedDecision(ctx, req, st, who, second)
	if err != nil {
		return domain.Review{}, domain.AuditRecord{}, err
	}
	if err := s.Store.ApplyDecision(ctx, d); err != nil {
		return s.notApplied(ctx, req, err)
	}
	if err := s.afterApplied(ctx, req, st, d); err != nil {
		return domain.Review{}, domain.AuditRecord{}, err
	}
	switch {
	case d.NewReview != nil:
		return *d.NewReview, d.Audit, nil
	case d.Review != nil:
		return *d.Review, d.Audit, nil // at its new version
	}
	return result, d.Audit, nil
}

// authorize identifies the maker (spent: by the signature its wait spent),
// checks the action against the records as they are now, requires the
// second operator's signed approval where the account asks for four eyes
// (second, nil otherwise), and requires the dossier the operator saw to be
// the current one.
func (s *Service) authorize(ctx context.Context, req Request, st state, approval *Approval, spent *domain.PendingApproval) (signer, *passkey.Signed, error) {
	who, err := s.identify(ctx, req, st, spent)
	if err != nil {
		return signer{}, nil, err
	}
	if err := s.check(ctx, req, st); err != nil {
		return signer{}, nil, err
	}
	var second *passkey.Signed
	if requiresFourEyes(st, req) {
		if second, err = s.secondApprover(ctx, req, st, who, approval); err != nil {
			return signer{}, nil, err
		}
	}
	if err := seenCurrent(req, st); err != nil {
		return signer{}, nil, err
	}
	return who, second, nil
}

// signedDecision is the write the action makes (plan), signed, its audit record
// naming the second approver and the dossier decided on; with the review
// plan returns.
func (s *Service) signedDecision(ctx context.Context, req Request, st state, who signer, second *passkey.Signed) (domain.Decision, domain.Review, error) {
	snapshot, markdown, err := s.dossierSnapshot(ctx, st)
	if errors.Is(err, domain.ErrStale) {
		return domain.Decision{}, domain.Review{}, stale(req)
	}
	if err != nil {
		return domain.Decision{}, domain.Review{}, err
	}
	d, result, err := s.plan(ctx, req, st)
	if err != nil {
		return domain.Decision{}, domain.Review{}, err
	}
	if second != nil {
		d.Audit.SecondApproverID = &second.OperatorID
	}
	sign(&d, req, who, second)
	d.Audit.SeenETag, d.Audit.DossierETag, d.Audit.DossierSHA256 = req.Seen, dossier.ETag(st.entity, dossier.FormMarkdown), snapshot
	if len(markdown) <= domain.MaxKeptDossier {
		d.Audit.DossierMarkdown = markdown
	}
	if req.Seen != "" {
		// The write finds the dossier at the revision read, or fails: the
		// dossier decided on is the one the operator saw, and the one the
		// audit record's tag and snapshot name.
		pinned := st.entity
		d.Pinned = &pinned
	}
	if err := s.counted(d, st, who, second); err != nil {
		return domain.Decision{}, domain.Review{}, err
	}
	return d, result, nil
}

// notApplied answers a write that failed (err): an action applied already
// (a retry) is replayed, finishing its expiries; a stale dossier or a used
// signature is refused as such.
func (s *Service) notApplied(ctx context.Context, req Request, err error) (domain.Review, domain.AuditRecord, error) {
	switch {
	case errors.Is(err, domain.ErrDuplicateAction):
		rec, err := s.Store.AuditRecord(ctx, req.AccountID, req.ActionID)
		if err != nil {
			return domain.Review{}, domain.AuditRecord{}, err
		}
		if rec.EntityID > 0 {
			// A retry after the expiries were cut short finishes them
			// (nothing to do while the relationship lasts).
			if err := s.expireEntity(ctx, req.AccountID, rec.EntityID, rec.ActionID); err != nil {
				return domain.Review{}, domain.AuditRecord{}, err
			}
		}
		r, err := s.replay(ctx, rec)
		return r, rec, err
	case errors.Is(err, domain.ErrStale):
		return domain.Review{}, domain.AuditRecord{}, stale(req)
	case errors.Is(err, domain.ErrSignatureUsed):
		return domain.Review{}, domain.AuditRecord{}, signatureUsed(req)
	}
	return domain.Review{}, domain.AuditRecord{}, err
}

// afterApplied dates what the decision wrote on an entity whose
// relationship ended. (The signing passkeys' counters moved in the
// decision's own transaction.)
func (s *Service) afterApplied(ctx context.Context, req Request, st state, d domain.Decision) error {
	if req.Action == domain.ActionEndRelationship || st.entity.RelationshipEndedAt != nil {
		// What the decision wrote is dated with the rest.
		if err := s.expireEntity(ctx, req.AccountID, d.Audit.EntityID, d.Audit.ActionID); err != nil {
			return err
		}
	}
	return nil
}

// expireEntity dates every item of an entity whose relationship ended:
// the end of its retention, one UpdateItem per item (store.ExpireEntity).
// Nothing of an entity expires before. It runs after end_relationship and
// after every later decision on the entity, which reaches what the
// decision wrote. A failure fails the task: its retry, refused as applied
// already, comes back here and finishes.
func (s *Service) expireEntity(ctx context.Context, accountID, entityID int64, written string) error {
	ent, err := s.Store.Entity(ctx, accountID, entityID)
	if err != nil {
		return err
	}
	// The decision's own record, which the trail's index may not show yet.
	if _, err := s.Store.ExpireEntity(ctx, ent, written); err != nil {
		return fmt.Errorf("the relationship ended; the expiry of its records: %w", err)
	}
	return nil
}

// signatureUsed is the refusal of a decision whose signature's write
// found it consumed: its ceremony taken or ended, its pending approval
// gone, or its passkey's counter moved by another use meanwhile (of two
// signatures carrying one counter value, one is used).
func signatureUsed(req Request) error {
	return domain.Errorf(domain.ECodeSignatureRequired,
		"a signature of %s was used already, its ceremony ended, or its passkey signed something else meanwhile: sign the decision again", req.ActionID)
}

// stale is the refusal of an action whose review or entity changed while it
// was applied: StaleView for a decision bound to a view (the review and the
// entity are in the dossier, so either moving made the view stale), a
// conflict otherwise.
func stale(req Request) error {
	if req.Seen != "" {
		return domain.Errorf(domain.ECodeStaleView, "review %d or its entity changed while %s was applied: the dossier seen (%s) is no longer current; reload it and decide again", req.ReviewID, req.Action, req.Seen)
	}
	return domain.Errorf(domain.ECodeConflict, "review %d or its entity changed while %s was applied (another operator acted first); reload and decide again", req.ReviewID, req.Action)
}

// seenCurrent refuses with StaleView a request bound to a view (Seen) that
// is not the entity's dossier as read for the decision: the tag is of the
// dossier's revision, so comparing needs only the entity's item.
func seenCurrent(req Request, st state) error {
	if req.Seen == "" {
		return nil
	}
	if tag := dossier.ETag(st.entity, dossier.FormMarkdown); !etag.Same(req.Seen, tag) {
		return domain.Errorf(domain.ECodeStaleView, "entity %d's dossier changed since it was seen (%s, now %s); reload it and decide again", st.entity.ID, req.Seen, tag)
	}
	return nil
}

// dossierSnapshot is the entity's dossier (its Markdown) at the revision the
// decision read, and its SHA-256, which its audit record keeps. A dossier
// that moved meanwhile is a conflict like any other (the write would fail
// on the revision anyway).
func (s *Service) dossierSnapshot(ctx context.Context, st state) (sum, markdown string, err error) {
	d, err := s.Store.Dossier(ctx, st.entity)
	if err != nil {
		return "", "", err
	}
	markdown, sum = dossier.Snapshot(d, s.countries())
	return sum, markdown, nil
}

// countries is the service's catalogue: the API's, country.ISO() if none
// is configured.
func (s *Service) countries() *country.Catalogue {
	if s.Countries == nil {
		return country.ISO()
	}
	return s.Countries
}

// replay answers a repeated action with the review as it stands.
func (s *Service) replay(ctx context.Context, rec domain.AuditRecord) (domain.Review, error) {
	if rec.ReviewID == nil {
		return domain.Review{}, domain.Errorf(domain.ECodeConflict, "action %s was already applied", rec.ActionID)
	}
	if rec.Action == domain.ActionOpenPeriodicReview {
		if id, ok := rec.After["review_id"].(float64); ok {
			return s.Store.Review(ctx, rec.AccountID, int64(id))
		}
	}
	return s.Store.Review(ctx, rec.AccountID, *rec.ReviewID)
}

// entityScreening is the entity's own newest completed screening (false
// when it has none).
func (s *Service) entityScreening(ctx context.Context, st state) (domain.Check, bool, error) {
	cs, err := s.Store.EntityChecks(ctx, st.review.AccountID, st.entity.ID, st.entity.ChecksCount)
	if err != nil {
		return domain.Check{}, false, err
	}
	c, ok := entityScreening(cs)
	return c, ok, nil
}
