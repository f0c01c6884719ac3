// Package seed generates demo and benchmark data: entities with their checks
// and reviews, shaped for store.ImportEntities (every id zero; the store
// assigns ids, links checks to each entity's first review and sets the
// counts).
//
// Generation is deterministic: a fixed PCG seed, and nothing read from the
// clock but the now passed in. In Demo every entity draws from a generator of
// its own, seeded by its position, so entity i has the same content whatever
// n is (only its timestamps depend on n): the first 120 entities cover every
// value of the contract, so any n >= 120 does too.
package seed

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Window is how far back Demo and Bulk spread creation times.
const Window = 120 * 24 * time.Hour

// The newest entity is created at least this long before now, so that every
// entity has room for a little history after its creation.
const newestGap = time.Hour

// Entities live at least this long between creation and last change (unless
// created very recently).
const minLife = 10 * time.Minute

const (
	demoSeed uint64 = 0x5eedde40a11ce001
	bulkSeed uint64 = 0x5eedb01cb0b00002
)

// Country identity of generated entities.
const (
	saCode    = "SA"
	saNumeric = 682
	aeCode    = "AE"
	aeNumeric = 784
)

// Provider keys of the two check types.
const (
	providerRegistry  = "wathq"
	providerScreening = "opensanctions"
)

// Outcome reasons recorded with completed reviews.
const (
	ReasonDocumentsVerified    = "documents_verified"
	ReasonRegistryVerified     = "registry_verified"
	ReasonLowRisk              = "low_risk"
	ReasonPeriodicReviewPassed = "periodic_review_passed"
	ReasonSanctionsHit         = "sanctions_hit"
	ReasonRegistryInvalid      = "registry_invalid"
	ReasonDocumentsMissing     = "documents_missing"
)

// Outcomes a completed registry lookup reports, and what each means for the
// entity's registration status.
const (
	regActive    = "active"
	regSuspended = "suspended"
	regExpired   = "expired"
	regCancelled = "cancelled"
)

var registryToRegistration = map[string]domain.RegistrationStatus{
	regActive:    domain.RegistrationValid,
	regSuspended: domain.RegistrationInvalid,
	regCancelled: domain.RegistrationInvalid,
	regExpired:   domain.RegistrationExpired,
}

var registryCRStatus = map[string]string{
	regActive:    "Active",
	regSuspended: "Suspended",
	regExpired:   "Expired",
	regCancelled: "Struck off",
}

// Outcomes a completed organization screening reports; they are the
// sanctions statuses of the same names.
const (
	scrClear       = string(domain.SanctionsClear)
	scrHit         = string(domain.SanctionsHit)
	scrNeedsReview = string(domain.SanctionsNeedsReview)
)

// Demo returns the demo data set: n entities (n >= 120 gives full coverage),
// created over the 120 days before now, oldest first (the store assigns
// increasing ids in slice order, so the last one is the newest).
//
// Each entity's checks are in creation order (oldest first, so that their ids
// grow with creation) and its reviews start with the initial review, the one
// the store links the checks to. The store returns both in display order.
func Demo(now time.Time, n int) []domain.EntityDetail {
	if n <= 0 {
		return []domain.EntityDetail{}
	}
	now = now.UTC().Truncate(time.Millisecond)
	out := make([]domain.EntityDetail, n)
	for i := range out {
		r := rand.New(rand.NewPCG(demoSeed, mix(uint64(i))))
		out[i] = demoEntity(r, now, i, createdAt(now, i, n, r.Float64()))
	}
	return out
}

// Bulk returns n plain entities for benchmarks: same shape, one country (SA),
// one check and one review each, cheap to generate. Registration numbers are
// unique within the set and never collide with Demo's.
func Bulk(now time.Time, n int) []domain.EntityDetail {
	if n <= 0 {
		return []domain.EntityDetail{}
	}
	now = now.UTC().Truncate(time.Millisecond)
	r := rand.New(rand.NewPCG(bulkSeed, 0))
	out := make([]domain.EntityDetail, n)
	for i := range out {
		out[i] = bulkEntity(r, now, i, createdAt(now, i, n, r.Float64()))
	}
	return out
}

// createdAt spreads n creation times evenly over the window, each jittered
// within the first half of its slot so that they strictly increase.
func createdAt(now time.Time, i, n int, jitter float64) time.Time {
	spanMS := (Window - newestGap).Milliseconds()
	slot := spanMS / int64(n)
	if slot < 1 {
		slot = 1
	}
	off := int64(i)*slot + int64(jitter*float64(slot/2))
	return now.Add(-Window).Add(time.Duration(off) * time.Millisecond)
}

// mix is splitmix64's finaliser: it turns consecutive positions into
// unrelated generator streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Registration numbers come from a bijection of the position, so they are
// unique without bookkeeping: multiplying by a number coprime to the modulus
// permutes the residues. Demo uses positions below bulkOffset, Bulk positions
// from it, so the two never share a number.
const bulkOffset = 500_000_000

func saRegistration(pos int) string {
	const mod = 1_000_000_000
	x := (uint64(pos)*387_420_489 + 123_456_789) % mod // 3^18
	return fmt.Sprintf("7%09d", x)
}

func aeRegistration(pos int) string {
	const mod = 10_000_000
	x := (uint64(pos)*4_782_969 + 2_718_281) % mod // 3^14
	return fmt.Sprintf("CN-%07d", x)
}

// ---------------------------------------------------------------------------
// Word lists.

var (
	saCores = []string{
		"Al Noor", "Al Amal", "Al Waha", "Al Safwa", "Al Masar", "Al Yamama", "Al Rawabi",
		"Al Bayan", "Al Majd", "Al Fajr", "Riyadh", "Jeddah", "Dammam", "Najd", "Hijaz",
		"Qassim", "Tabuk", "Gulf Horizon", "Desert Rose", "Red Sea", "Golden Palm",
		"Green Oasis", "Crescent", "Falcon", "Summit", "Silver Dune", "Blue Wave",
	}
	aeCores = []string{
		"Dubai", "Abu Dhabi", "Sharjah", "Emirates", "Marina", "Creek", "Palm", "Pearl",
		"Gulf Horizon", "Jumeirah", "Al Ain", "Corniche", "Saffron", "Dune", "Falcon",
	}
	sectors = []string{
		"Trading", "Logistics", "Contracting", "Food Industries", "Real Estate",
		"Medical Supplies", "Information Technology", "Consulting", "Transport", "Catering",
		"Textiles", "Building Materials", "Electronics", "Travel and Tourism",
		"Facility Management", "Printing", "Agriculture", "Security Services", "Marketing",
		"Engineering", "General Trading",
	}
	saSuffixes = []string{"Company", "Company", "Est.", "Est.", "Co. Ltd.", "LLC", "Holding Company", "Group"}
	aeSuffixes = []string{"LLC", "LLC", "L.L.C.", "FZE", "FZ-LLC", "DMCC"}

	// Names with characters that need escaping in Markdown, pinned to
	// positions below 120 so every demo set has them.
	specialNames = map[int]string{
		5:   "Smith & Sons | Holdings *Ltd*",
		29:  "Al_Bayan [Tech] Solutions Co.",
		53:  "`Backtick` & Partners #1 Trading",
		77:  "Star*Light <Media> Est.",
		101: `Pipe | Line \ Contracting_Est.`,
	}

	activities = []string{
		"Wholesale of food products",
		"Road freight transport",
		"General building construction",
		"Retail sale of electronics",
		"IT consulting and software development",
		"Import and export of building materials",
		"Medical equipment distribution",
		"Restaurant and catering services",
		"Real estate brokerage and management",
		"Travel agency services",
		"Facility cleaning and maintenance",
	}

	partyNames = []string{
		"Abdullah Al-Otaibi", "Fatimah Al-Zahrani", "Khalid Bin Saeed", "Mohammed Al-Ghamdi",
		"Aisha Rahman", "Yousef Al-Mutairi", "Hessa Al-Dosari", "Rashid Karim", "John O'Neill",
	}
)

type operator struct {
	id   int64
	name string
}

var operators = []operator{
	{101, "Noura Al-Harbi"},
	{102, "Omar Siddiqui"},
	{103, "Layla Haddad"},
	{104, "Faisal Al-Qahtani"},
	{105, "Sara Mansour"},
}

// ---------------------------------------------------------------------------
// Random helpers.

type choice[T any] struct {
	v T
	w int
}

func c[T any](v T, w int) choice[T] { return choice[T]{v, w} }

func weighted[T any](r *rand.Rand, cs ...choice[T]) T {
	total := 0
	for _, x := range cs {
		total += x.w
	}
	k := r.IntN(total)
	for _, x := range cs {
		if k < x.w {
			return x.v
		}
		k -= x.w
	}
	return cs[len(cs)-1].v
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func pct(r *rand.Rand, p int) bool { return r.IntN(100) < p }

func between(r *rand.Rand, a, b float64) float64 { return a + r.Float64()*(b-a) }

func ptr[T any](v T) *T { return &v }

// span is an entity's life from creation to last change; every child
// timestamp lies within it.
type span struct{ from, to time.Time }

// at is the point at fraction f of the span.
func (s span) at(f float64) time.Time {
	d := time.Duration(float64(s.to.Sub(s.from)) * f)
	return s.clamp(s.from.Add(d))
}

// after is t plus d, kept within the span.
func (s span) after(t time.Time, d time.Duration) time.Time { return s.clamp(t.Add(d)) }

func (s span) clamp(t time.Time) time.Time {
	t = t.Truncate(time.Millisecond)
	if t.After(s.to) {
		return s.to
	}
	if t.Before(s.from) {
		return s.from
	}
	return t
}

// ---------------------------------------------------------------------------
// Plans: what an entity's story is, decided before any timestamp.

type extraKind int

const (
	extraNone             extraKind = iota
	extraOperatorRescreen           // operator asked to screen the organisation again (or to retry a failed intake)
	extraParty                      // operator screened one of the entity's parties
	extraPeriodicRescreen           // screening run for a periodic review
	extraPeriodicLookup             // registry lookup run for a periodic review (SA)
)

// checkPlan is one check's status and, when completed, its outcome. A zero
// status means no such check.
type checkPlan struct {
	status  domain.CheckStatus
	outcome string
}

type plan struct {
	country  string
	status   domain.EntityStatus
	initial  domain.ReviewStatus // "" when the entity has no review
	periodic domain.ReviewStatus // "" when it has no periodic review
	// Outcomes and reasons of completed reviews.
	initialOutcome, initialReason   string
	periodicOutcome, periodicReason string
	registry                        checkPlan // intake registry lookup (SA only)
	screening                       checkPlan // intake organisation screening
	extra                           extraKind
	extraCheck                      checkPlan
	assessed                        bool
	risk                            domain.RiskLevel // forced level when assessed; "" derives it
	fewDocuments                    bool
}

var (
	cleanRegistry  = checkPlan{domain.CheckCompleted, regActive}
	cleanScreening = checkPlan{domain.CheckCompleted, scrClear}
)

func completed(outcome string) checkPlan { return checkPlan{domain.CheckCompleted, outcome} }

// status is a check that has not completed (completed ones need an outcome).
func status(s domain.CheckStatus) checkPlan { return checkPlan{status: s} }

// scenario pins an entity's story (or part of it) so that the demo set
// covers every value, whatever the dice say.
type scenario struct {
	country string
	status  domain.EntityStatus
	tweak   func(p *plan, r *rand.Rand)
}

// scenarios are applied to every third entity from the oldest until they run
// out (positions 0, 3, ... 3*(len-1) < 120).
var scenarios = []scenario{
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = checkPlan{}, checkPlan{}
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening, p.extra = cleanRegistry, cleanScreening, extraNone
		p.assessed, p.risk = true, domain.RiskLow
	}},
	{saCode, domain.EntityApproved, func(p *plan, _ *rand.Rand) {
		p.extra = extraNone
		p.assessed, p.risk = true, domain.RiskLow
	}},
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = status(domain.CheckPending), status(domain.CheckPending)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewInProgress
		p.registry, p.screening, p.extra = completed(regSuspended), completed(scrNeedsReview), extraNone
		p.assessed, p.risk = true, domain.RiskMedium
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonSanctionsHit, false)
		p.assessed, p.risk = true, domain.RiskHigh
	}},
	{aeCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewEscalated
		p.screening, p.extra, p.extraCheck = completed(scrHit), extraOperatorRescreen, completed(scrHit)
		p.assessed, p.risk = true, domain.RiskHigh
	}},
	{saCode, domain.EntityOnboarded, nil},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewCancelled, extraPeriodicRescreen)
	}},
	{saCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.registry, p.screening = status(domain.CheckRunning), status(domain.CheckFailed)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening = status(domain.CheckFailed), status(domain.CheckFailed)
		p.extra, p.extraCheck = extraOperatorRescreen, status(domain.CheckRunning)
		p.assessed = false
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonRegistryInvalid, false)
		p.registry = completed(regExpired)
	}},
	{aeCode, domain.EntityApproved, func(p *plan, _ *rand.Rand) {
		p.extra = extraParty
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewEscalated, extraPeriodicLookup)
		p.extraCheck = completed(regExpired)
	}},
	{aeCode, domain.EntityDraft, func(p *plan, _ *rand.Rand) {
		p.screening = status(domain.CheckRunning)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewInProgress
		p.registry, p.screening = completed(regExpired), cleanScreening
		p.extra = extraParty
	}},
	{aeCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonDocumentsMissing, false)
	}},
	{aeCode, domain.EntityOnboarded, nil},
	{aeCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewOpen, extraPeriodicRescreen)
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewCompleted, extraPeriodicRescreen)
	}},
	{saCode, domain.EntityUnderMonitoring, func(p *plan, r *rand.Rand) {
		setPeriodic(p, r, domain.ReviewInProgress, extraPeriodicLookup)
	}},
	{saCode, domain.EntityRejected, func(p *plan, r *rand.Rand) {
		setRejected(p, r, ReasonSanctionsHit, true)
	}},
	{saCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewOpen
		p.registry, p.screening, p.extra = status(domain.CheckPending), status(domain.CheckRunning), extraNone
		p.assessed = false
	}},
	{aeCode, domain.EntityReadyForReview, func(p *plan, _ *rand.Rand) {
		p.initial = domain.ReviewEscalated
		p.screening, p.extra = completed(scrNeedsReview), extraParty
		p.assessed, p.risk = true, domain.RiskMedium
	}},
}

func randomCountry(r *rand.Rand) string {
	if pct(r, 85) {
		return saCode
	}
	return aeCode
}

func randomStatus(r *rand.Rand) domain.EntityStatus {
	return weighted(r,
		c(domain.EntityDraft, 12),
		c(domain.EntityReadyForReview, 25),
		c(domain.EntityApproved, 18),
		c(domain.EntityRejected, 10),
		c(domain.EntityOnboarded, 20),
		c(domain.EntityUnderMonitoring, 15),
	)
}

// intakeRegistry is a registry lookup of an entity still in review.
func intakeRegistry(r *rand.Rand) checkPlan {
	switch weighted(r, c(domain.CheckCompleted, 75), c(domain.CheckFailed, 10), c(domain.CheckRunning, 8), c(domain.CheckPending, 7)) {
	case domain.CheckCompleted:
		return completed(weighted(r, c(regActive, 80), c(regSuspended, 10), c(regExpired, 10)))
	case domain.CheckFailed:
		return status(domain.CheckFailed)
	case domain.CheckRunning:
		return status(domain.CheckRunning)
	default:
		return status(domain.CheckPending)
	}
}

// intakeScreening is an organisation screening of an entity still in review.
func intakeScreening(r *rand.Rand) checkPlan {
	switch weighted(r, c(domain.CheckCompleted, 75), c(domain.CheckRunning, 10), c(domain.CheckPending, 8), c(domain.CheckFailed, 7)) {
	case domain.CheckCompleted:
		return completed(weighted(r, c(scrClear, 75), c(scrNeedsReview, 15), c(scrHit, 10)))
	case domain.CheckRunning:
		return status(domain.CheckRunning)
	case domain.CheckPending:
		return status(domain.CheckPending)
	default:
		return status(domain.CheckFailed)
	}
}

func approvedReason(r *rand.Rand) string {
	return weighted(r, c(ReasonDocumentsVerified, 50), c(ReasonRegistryVerified, 30), c(ReasonLowRisk, 20))
}

// setApproved gives the entity a completed, approved initial review and
// clean intake checks.
func setApproved(p *plan, r *rand.Rand) {
	p.initial, p.initialOutcome, p.initialReason = domain.ReviewCompleted, domain.OutcomeApproved, approvedReason(r)
	p.registry, p.screening = cleanRegistry, cleanScreening
}

// setPeriodic adds a periodic review in status st, with the check it ran.
func setPeriodic(p *plan, r *rand.Rand, st domain.ReviewStatus, extra extraKind) {
	setApproved(p, r)
	p.periodic = st
	p.periodicOutcome, p.periodicReason = "", ""
	if st == domain.ReviewCompleted {
		p.periodicOutcome, p.periodicReason = domain.OutcomeApproved, ReasonPeriodicReviewPassed
	}
	p.extra = extra
	switch {
	case extra == extraPeriodicLookup && st == domain.ReviewEscalated:
		p.extraCheck = completed(weighted(r, c(regExpired, 50), c(regSuspended, 50)))
	case extra == extraPeriodicLookup:
		p.extraCheck = cleanRegistry
	case st == domain.ReviewEscalated:
		p.extraCheck = completed(weighted(r, c(scrNeedsReview, 70), c(scrHit, 30)))
	default:
		p.extraCheck = cleanScreening
	}
}

// setRejected makes the entity rejected for reason, by its initial review
// or (viaPeriodic) by a periodic review after an approval.
func setRejected(p *plan, r *rand.Rand, reason string, viaPeriodic bool) {
	setApproved(p, r)
	p.extra, p.extraCheck, p.periodic, p.periodicOutcome, p.periodicReason = extraNone, checkPlan{}, "", "", ""
	p.fewDocuments = reason == ReasonDocumentsMissing
	if viaPeriodic {
		p.periodic, p.periodicOutcome, p.periodicReason = domain.ReviewCompleted, domain.OutcomeRejected, reason
		switch reason {
		case ReasonSanctionsHit:
			p.extra, p.extraCheck = extraPeriodicRescreen, completed(scrHit)
		case ReasonRegistryInvalid:
			p.extra, p.extraCheck = extraPeriodicLookup, completed(weighted(r, c(regExpired, 50), c(regSuspended, 30), c(regCancelled, 20)))
		default:
			p.extra, p.extraCheck = extraPeriodicRescreen, cleanScreening
		}
		return
	}
	p.initialOutcome, p.initialReason = domain.OutcomeRejected, reason
	switch reason {
	case ReasonSanctionsHit:
		p.screening = completed(scrHit)
	case ReasonRegistryInvalid:
		p.registry = completed(weighted(r, c(regSuspended, 40), c(regExpired, 30), c(regCancelled, 30)))
	}
}

// planFor draws a coherent story for an entity of the country and status.
func planFor(r *rand.Rand, country string, st domain.EntityStatus) plan {
	p := plan{country: country, status: st}
	sa := country == saCode
	switch st {
	case domain.EntityDraft:
		if pct(r, 35) {
			break // nothing has run yet
		}
		if sa {
			p.registry = weighted(r,
				c(status(domain.CheckPending), 30), c(status(domain.CheckRunning), 25),
				c(status(domain.CheckFailed), 20), c(cleanRegistry, 25))
		}
		p.screening = weighted(r,
			c(status(domain.CheckPending), 35), c(status(domain.CheckRunning), 30),
			c(status(domain.CheckFailed), 20), c(checkPlan{}, 15))
	case domain.EntityReadyForReview:
		p.initial = weighted(r, c(domain.ReviewOpen, 40), c(domain.ReviewInProgress, 40), c(domain.ReviewEscalated, 20))
		if sa {
			p.registry = intakeRegistry(r)
		}
		p.screening = intakeScreening(r)
		if p.initial == domain.ReviewEscalated && p.screening == cleanScreening && p.registry.outcome != regSuspended && p.registry.outcome != regExpired {
			p.screening = completed(scrNeedsReview) // something to escalate about
		}
		switch {
		case pct(r, 15):
			p.extra = extraOperatorRescreen
			if p.screening.status == domain.CheckFailed {
				p.extraCheck = weighted(r, c(completed(scrClear), 50), c(status(domain.CheckRunning), 25), c(status(domain.CheckPending), 25))
			} else {
				p.extraCheck = completed(weighted(r, c(p.screening.outcome, 70), c(scrNeedsReview, 30)))
			}
		case pct(r, 12):
			p.extra = extraParty
		}
		p.assessed = pct(r, 45)
	case domain.EntityApproved, domain.EntityOnboarded:
		setApproved(&p, r)
		switch {
		case pct(r, 10):
			p.extra = extraParty
		case pct(r, 8):
			p.extra, p.extraCheck = extraOperatorRescreen, cleanScreening
		}
		p.assessed = pct(r, 90)
	case domain.EntityUnderMonitoring:
		if pct(r, 75) {
			st := weighted(r,
				c(domain.ReviewOpen, 25), c(domain.ReviewInProgress, 25), c(domain.ReviewEscalated, 15),
				c(domain.ReviewCompleted, 20), c(domain.ReviewCancelled, 15))
			extra := extraPeriodicRescreen
			if sa && pct(r, 40) {
				extra = extraPeriodicLookup
			}
			setPeriodic(&p, r, st, extra)
		} else {
			setApproved(&p, r)
			if pct(r, 10) {
				p.extra = extraParty
			}
		}
		p.assessed = pct(r, 90)
	case domain.EntityRejected:
		reason := weighted(r, c(ReasonSanctionsHit, 40), c(ReasonRegistryInvalid, 40), c(ReasonDocumentsMissing, 20))
		if !sa && reason == ReasonRegistryInvalid {
			reason = ReasonSanctionsHit
		}
		setRejected(&p, r, reason, pct(r, 25))
		p.assessed = pct(r, 90)
	}
	return p
}

// normalize enforces the rules no tweak may break: no registry lookups
// outside Saudi Arabia, no checks beyond what the intake check allows (a
// screening after a completed one is completed too, so the latest screening
// and the latest completed one tell the same story), parties screened only
// once the organisation was.
func (p *plan) normalize() {
	if p.country != saCode {
		p.registry = checkPlan{}
		if p.extra == extraPeriodicLookup {
			p.extra = extraPeriodicRescreen
			p.extraCheck = cleanScreening
		}
	}
	if p.status == domain.EntityDraft {
		p.initial, p.periodic, p.extra = "", "", extraNone
	}
	if p.periodic == "" && (p.extra == extraPeriodicLookup || p.extra == extraPeriodicRescreen) {
		p.extra = extraNone
	}
	base := p.screening
	if p.extra == extraPeriodicLookup {
		base = p.registry
	}
	switch p.extra {
	case extraParty:
		if p.screening.status != domain.CheckCompleted {
			p.extra = extraNone
		}
		p.extraCheck = p.screening
	case extraOperatorRescreen, extraPeriodicRescreen, extraPeriodicLookup:
		switch base.status {
		case domain.CheckCompleted:
			if p.extraCheck.status != domain.CheckCompleted {
				p.extraCheck = base
			}
		case domain.CheckFailed:
			// a retry: any status
		default:
			p.extra = extraNone
		}
	}
	if p.extra == extraNone {
		p.extraCheck = checkPlan{}
	}
	if p.extraCheck.status == domain.CheckCompleted && p.extraCheck.outcome == "" {
		p.extraCheck.outcome = base.outcome
	}
	if p.status == domain.EntityDraft {
		p.assessed = false
	}
}

// ---------------------------------------------------------------------------
// Building an entity from its plan.

func demoEntity(r *rand.Rand, now time.Time, i int, created time.Time) domain.EntityDetail {
	country, st := randomCountry(r), randomStatus(r)
	var tweak func(*plan, *rand.Rand)
	if i%3 == 0 && i/3 < len(scenarios) {
		s := scenarios[i/3]
		country, st, tweak = s.country, s.status, s.tweak
	}
	p := planFor(r, country, st)
	if tweak != nil {
		tweak(&p, r)
	}
	p.normalize()

	e := domain.Entity{Status: p.status, CreatedAt: created}
	if p.country == saCode {
		e.CountryCode, e.CountryID, e.RegistrationNumber = saCode, saNumeric, saRegistration(i)
	} else {
		e.CountryCode, e.CountryID, e.RegistrationNumber = aeCode, aeNumeric, aeRegistration(i)
	}
	core, sector := pick(r, saCores), pick(r, sectors)
	suffix := pick(r, saSuffixes)
	if p.country == aeCode {
		core, suffix = pick(r, aeCores), pick(r, aeSuffixes)
	}
	e.LegalName = core + " " + sector + " " + suffix
	if name, ok := specialNames[i]; ok {
		e.LegalName = name
	}
	e.UpdatedAt = lastChange(r, now, created, p.status)
	life := span{e.CreatedAt, e.UpdatedAt}

	if pct(r, 55) {
		e.WebsiteURL = ptr(website(core, sector, p.country))
	}
	if pct(r, 40) {
		e.SocialURL = ptr(social(r, core, sector))
	}
	if pct(r, 50) {
		e.ActivitySummary = ptr(pick(r, activities))
	}
	e.RelationshipsCount = r.IntN(5)
	switch {
	case p.fewDocuments:
		e.DocumentsCount = r.IntN(2)
	case p.status == domain.EntityDraft:
		e.DocumentsCount = r.IntN(3)
	default:
		e.DocumentsCount = r.IntN(7)
	}

	reviews, marks := buildReviews(r, p, life)
	cs := buildChecks(r, p, e, life, marks, i)
	e.ChecksCount, e.ReviewsCount = len(cs), len(reviews)
	if len(reviews) > 0 {
		reviews[0].ChecksCount = len(cs)
	}
	e.SanctionsStatus = sanctionsFrom(cs)
	e.RegistrationStatus = registrationFrom(p, cs)
	e.Score = checks.ScoreOf(e, cs)
	if p.assessed {
		e.Risk = &domain.RiskAssessment{Level: riskLevel(r, p, e), AssessedAt: marks.decided}
		if e.Risk.AssessedAt.IsZero() {
			e.Risk.AssessedAt = life.at(between(r, 0.2, 1))
		}
	}
	return domain.EntityDetail{Entity: e, Checks: cs, Reviews: reviews}
}

// lastChange picks when the entity last changed: drafts soon after creation,
// a quarter of the rest within the last week, the others anywhere in between.
func lastChange(r *rand.Rand, now, created time.Time, st domain.EntityStatus) time.Time {
	age := now.Sub(created)
	life := minLife
	if age < life {
		life = age
	}
	var t time.Time
	switch {
	case st == domain.EntityDraft:
		t = created.Add(life + time.Duration(r.Int64N(int64(72*time.Hour))))
	case pct(r, 25):
		t = now.Add(-time.Duration(r.Int64N(int64(7 * 24 * time.Hour))))
	default:
		t = created.Add(life + time.Duration(r.Float64()*float64(age-life)))
	}
	if t.Before(created.Add(life)) {
		t = created.Add(life)
	}
	if t.After(now) {
		t = now
	}
	return t.Truncate(time.Millisecond)
}

func slug(words ...string) string {
	var parts []string
	for _, w := range words {
		for _, f := range strings.Fields(strings.ToLower(w)) {
			f = strings.Map(func(ch rune) rune {
				if ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' {
					return ch
				}
				return -1
			}, f)
			if f != "" {
				parts = append(parts, f)
			}
		}
	}
	return strings.Join(parts, "-")
}

func website(core, sector, country string) string {
	tld := ".com.sa"
	if country == aeCode {
		tld = ".ae"
	}
	return "https://www." + slug(core, sector) + tld
}

func social(r *rand.Rand, core, sector string) string {
	if pct(r, 60) {
		return "https://www.linkedin.com/company/" + slug(core, sector)
	}
	return "https://x.com/" + strings.ReplaceAll(slug(core), "-", "")
}

// marks are the moments of the review story that checks and the risk
// assessment hang off.
type marks struct {
	initialCreated  time.Time
	initialStarted  time.Time // zero when not started
	periodicCreated time.Time // zero without a periodic review
	decided         time.Time // when the latest decision was taken; zero if none
}

func assign(r *rand.Rand, rv *domain.Review) {
	op := pick(r, operators)
	rv.AssignedUserID, rv.AssignedUserName = ptr(op.id), ptr(op.name)
}

// review builds one review of status st created at created; its later
// moments fall between the fractions lo and hi of the entity's life.
func review(r *rand.Rand, purpose domain.ReviewPurpose, st domain.ReviewStatus, outcome, reason string, created time.Time, life span, lo, hi float64) domain.Review {
	rv := domain.Review{Purpose: purpose, Status: st, CreatedAt: created, UpdatedAt: created}
	if st == domain.ReviewOpen {
		rv.NotesCount = r.IntN(2)
		return rv
	}
	rv.NotesCount = r.IntN(6)
	mid := between(r, lo, lo+(hi-lo)*0.4)
	started := maxTime(life.at(mid), created)
	end := maxTime(life.at(between(r, lo+(hi-lo)*0.6, hi)), started)
	switch st {
	case domain.ReviewInProgress, domain.ReviewEscalated:
		assign(r, &rv)
		rv.StartedAt, rv.UpdatedAt = ptr(started), end
	case domain.ReviewCompleted:
		assign(r, &rv)
		rv.StartedAt, rv.CompletedAt, rv.UpdatedAt = ptr(started), ptr(end), end
		rv.Outcome, rv.OutcomeReason = ptr(outcome), ptr(reason)
	case domain.ReviewCancelled:
		if pct(r, 50) {
			assign(r, &rv)
			rv.StartedAt = ptr(started)
		}
		rv.UpdatedAt = end
	}
	return rv
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// buildReviews returns the initial review first (the store links the checks
// to it), then the periodic one.
func buildReviews(r *rand.Rand, p plan, life span) ([]domain.Review, marks) {
	var m marks
	if p.initial == "" {
		return nil, m
	}
	m.initialCreated = life.after(life.from, time.Duration(4000+r.IntN(4000))*time.Millisecond)
	if p.periodic == "" {
		ini := review(r, domain.ReviewInitial, p.initial, p.initialOutcome, p.initialReason, m.initialCreated, life, 0.05, 1)
		if ini.StartedAt != nil {
			m.initialStarted = *ini.StartedAt
		}
		if ini.CompletedAt != nil {
			m.decided = *ini.CompletedAt
		}
		return []domain.Review{ini}, m
	}
	ini := review(r, domain.ReviewInitial, p.initial, p.initialOutcome, p.initialReason, m.initialCreated, life, 0.02, 0.3)
	m.initialStarted, m.decided = *ini.StartedAt, *ini.CompletedAt
	m.periodicCreated = maxTime(life.at(between(r, 0.5, 0.7)), ini.UpdatedAt)
	per := review(r, domain.ReviewPeriodic, p.periodic, p.periodicOutcome, p.periodicReason, m.periodicCreated, life, 0.72, 1)
	if per.CompletedAt != nil {
		m.decided = *per.CompletedAt
	}
	return []domain.Review{ini, per}, m
}

// buildChecks returns the checks in creation order: intake registry lookup,
// intake screening, then the one check run later, if any.
func buildChecks(r *rand.Rand, p plan, e domain.Entity, life span, m marks, i int) []domain.Check {
	var out []domain.Check
	at := life.after(life.from, time.Duration(1000+r.IntN(500))*time.Millisecond)
	if p.registry.status != "" {
		out = append(out, check(r, domain.CheckRegistryLookup, domain.TriggerIntake, p.registry, e, at, life))
	}
	at = life.after(life.from, time.Duration(2000+r.IntN(1000))*time.Millisecond)
	if p.screening.status != "" {
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerIntake, p.screening, e, at, life))
	}
	if p.extra == extraNone {
		return out
	}
	prev := out[len(out)-1].CreatedAt
	switch p.extra {
	case extraOperatorRescreen, extraParty:
		at = life.at(between(r, 0.3, 0.6))
		if !m.initialStarted.IsZero() && m.periodicCreated.IsZero() {
			at = m.initialStarted
		}
		if !m.periodicCreated.IsZero() {
			at = life.at(between(r, 0.32, 0.48)) // between the two reviews
		}
	case extraPeriodicRescreen, extraPeriodicLookup:
		at = life.after(m.periodicCreated, time.Duration(2000+r.IntN(8000))*time.Millisecond)
	}
	if !at.After(prev) {
		at = prev.Add(time.Millisecond)
	}
	switch p.extra {
	case extraOperatorRescreen:
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerOperatorRequested, p.extraCheck, e, at, life))
	case extraParty:
		ch := check(r, domain.CheckOrganizationScreening, domain.TriggerOperatorRequested, p.extraCheck, e, at, life)
		ch.SubjectType = ptr("party")
		ch.SubjectID = ptr(int64(100_000 + i*8 + r.IntN(8)))
		ch.SubjectDisplayName = ptr(pick(r, partyNames))
		out = append(out, ch)
	case extraPeriodicRescreen:
		out = append(out, check(r, domain.CheckOrganizationScreening, domain.TriggerPeriodicReview, p.extraCheck, e, at, life))
	case extraPeriodicLookup:
		out = append(out, check(r, domain.CheckRegistryLookup, domain.TriggerPeriodicReview, p.extraCheck, e, at, life))
	}
	return out
}

// check builds one check created at created, with a sanitised result.
func check(r *rand.Rand, typ domain.CheckType, trigger string, cp checkPlan, e domain.Entity, created time.Time, life span) domain.Check {
	ch := domain.Check{
		Type:             typ,
		ProviderKey:      providerScreening,
		Status:           cp.status,
		TriggeringReason: trigger,
		CreatedAt:        created,
		UpdatedAt:        created,
	}
	timeout := time.Duration(domain.DefaultScreeningTimeoutMS) * time.Millisecond
	took := time.Duration(3000+r.IntN(600_000)) * time.Millisecond
	if typ == domain.CheckRegistryLookup {
		ch.ProviderKey = providerRegistry
		timeout = time.Duration(domain.DefaultRegistryTimeoutMS) * time.Millisecond
		took = time.Duration(400+r.IntN(4000)) * time.Millisecond
	}
	switch cp.status {
	case domain.CheckPending:
		ch.ProviderStatus = "queued"
		ch.Result = map[string]any{"status": "pending"}
	case domain.CheckRunning:
		ch.ProviderStatus = "processing"
		ch.Result = map[string]any{"status": "running"}
		ch.UpdatedAt = life.after(created, time.Duration(200+r.IntN(2000))*time.Millisecond)
	case domain.CheckFailed:
		failure := weighted(r, c("timeout", 60), c("503", 25), c("429", 15))
		ch.ProviderStatus = failure
		if failure == "timeout" {
			took = timeout
		}
		ch.Result = map[string]any{"status": "failed", "error": map[string]string{
			"timeout": "provider_timeout", "503": "provider_unavailable", "429": "rate_limited",
		}[failure]}
		ch.CheckedAt = ptr(life.after(created, took))
		ch.UpdatedAt = *ch.CheckedAt
	case domain.CheckCompleted:
		if typ == domain.CheckRegistryLookup {
			ch.ProviderStatus = cp.outcome
			ch.Result = map[string]any{
				"status":     cp.outcome,
				"legal_name": e.LegalName,
				"cr_status":  registryCRStatus[cp.outcome],
			}
		} else {
			ch.ProviderStatus = "200"
			n := 0
			switch cp.outcome {
			case scrHit:
				n = 1 + r.IntN(3)
			case scrNeedsReview:
				n = 1 + r.IntN(5)
			}
			ch.Result = map[string]any{"status": cp.outcome, "matched": n > 0, "matches_count": n}
		}
		ch.CheckedAt = ptr(life.after(created, took))
		ch.UpdatedAt = *ch.CheckedAt
	}
	return ch
}

// latest returns the last check of the type in creation order for which ok
// holds, or nil.
func latest(checks []domain.Check, typ domain.CheckType, ok func(domain.Check) bool) *domain.Check {
	var last *domain.Check
	for k := range checks {
		ch := &checks[k]
		if ch.Type == typ && ok(*ch) && (last == nil || !ch.CreatedAt.Before(last.CreatedAt)) {
			last = ch
		}
	}
	return last
}

func anyCheck(domain.Check) bool { return true }

// sanctionsFrom is the outcome of the latest screening when it completed,
// else not_run.
func sanctionsFrom(checks []domain.Check) domain.SanctionsStatus {
	last := latest(checks, domain.CheckOrganizationScreening, anyCheck)
	if last == nil || last.Status != domain.CheckCompleted {
		return domain.SanctionsNotRun
	}
	return domain.SanctionsStatus(last.Result["status"].(string))
}

// registrationFrom follows the latest completed registry lookup. Without one
// (always outside Saudi Arabia) an operator's decision on the documents
// stands in: valid once approved, invalid when rejected for it.
func registrationFrom(p plan, checks []domain.Check) domain.RegistrationStatus {
	last := latest(checks, domain.CheckRegistryLookup, func(ch domain.Check) bool { return ch.Status == domain.CheckCompleted })
	if last != nil {
		return registryToRegistration[last.Result["status"].(string)]
	}
	if p.country == saCode {
		return domain.RegistrationUnknown
	}
	switch {
	case p.initialReason == ReasonRegistryInvalid || p.periodicReason == ReasonRegistryInvalid:
		return domain.RegistrationInvalid
	case p.initialOutcome == domain.OutcomeApproved:
		return domain.RegistrationValid
	}
	return domain.RegistrationUnknown
}

// riskLevel is the plan's forced level or one that fits what the checks
// found.
func riskLevel(r *rand.Rand, p plan, e domain.Entity) domain.RiskLevel {
	if p.risk != "" {
		return p.risk
	}
	switch {
	case e.SanctionsStatus == domain.SanctionsHit:
		return domain.RiskHigh
	case e.SanctionsStatus == domain.SanctionsNeedsReview:
		return weighted(r, c(domain.RiskMedium, 60), c(domain.RiskHigh, 40))
	case e.RegistrationStatus == domain.RegistrationInvalid || e.RegistrationStatus == domain.RegistrationExpired:
		return weighted(r, c(domain.RiskMedium, 50), c(domain.RiskHigh, 50))
	case p.fewDocuments:
		return domain.RiskMedium
	}
	return weighted(r, c(domain.RiskLow, 75), c(domain.RiskMedium, 20), c(domain.RiskHigh, 5))
}

// ---------------------------------------------------------------------------
// Bulk.

var bulkStatuses = []domain.EntityStatus{
	domain.EntityReadyForReview, domain.EntityApproved, domain.EntityRejected,
	domain.EntityOnboarded, domain.EntityUnderMonitoring,
}

func bulkEntity(r *rand.Rand, now time.Time, i int, created time.Time) domain.EntityDetail {
	st := bulkStatuses[i%len(bulkStatuses)]
	updated := created.Add(minLife + time.Duration(r.Float64()*float64(now.Sub(created)-minLife))).Truncate(time.Millisecond)
	life := span{created, updated}
	e := domain.Entity{
		RegistrationNumber: saRegistration(bulkOffset + i),
		LegalName:          pick(r, saCores) + " " + pick(r, sectors) + " " + pick(r, saSuffixes),
		CountryCode:        saCode,
		CountryID:          saNumeric,
		Status:             st,
		RegistrationStatus: domain.RegistrationValid,
		RelationshipsCount: r.IntN(5),
		DocumentsCount:     r.IntN(7),
		ChecksCount:        1,
		ReviewsCount:       1,
		CreatedAt:          created,
		UpdatedAt:          updated,
	}
	checkAt := life.after(created, time.Second)
	rv := domain.Review{Purpose: domain.ReviewInitial, ChecksCount: 1, CreatedAt: life.after(created, 4*time.Second)}
	cp := cleanScreening
	switch st {
	case domain.EntityReadyForReview:
		rv.Status, rv.UpdatedAt = domain.ReviewOpen, rv.CreatedAt
		e.RegistrationStatus = domain.RegistrationUnknown
		if i%2 == 0 {
			cp = status(domain.CheckPending)
		}
	case domain.EntityRejected:
		cp = completed(scrHit)
		fallthrough
	default:
		op := operators[i%len(operators)]
		outcome, reason := domain.OutcomeApproved, ReasonDocumentsVerified
		if st == domain.EntityRejected {
			outcome, reason = domain.OutcomeRejected, ReasonSanctionsHit
		}
		rv.Status, rv.Outcome, rv.OutcomeReason = domain.ReviewCompleted, ptr(outcome), ptr(reason)
		rv.AssignedUserID, rv.AssignedUserName = ptr(op.id), ptr(op.name)
		rv.StartedAt, rv.CompletedAt, rv.UpdatedAt = ptr(life.at(0.3)), ptr(updated), updated
	}
	ch := check(r, domain.CheckOrganizationScreening, domain.TriggerIntake, cp, e, checkAt, life)
	e.SanctionsStatus = sanctionsFrom([]domain.Check{ch})
	e.Score = checks.ScoreOf(e, []domain.Check{ch})
	if st != domain.EntityReadyForReview {
		e.Risk = &domain.RiskAssessment{Level: domain.RiskLow, AssessedAt: updated}
		if st == domain.EntityRejected {
			e.Risk.Level = domain.RiskHigh
		}
	}
	return domain.EntityDetail{Entity: e, Checks: []domain.Check{ch}, Reviews: []domain.Review{rv}}
}
