// Package domain holds the service's core types: entities, their checks and
// reviews, accounts, API keys and country configuration. It depends on nothing
// but the standard library; every other package speaks in these types.
package domain

import "time"

// EntityStatus is where an entity stands in onboarding.
type EntityStatus string

const (
	EntityDraft           EntityStatus = "draft"
	EntityReadyForReview  EntityStatus = "ready_for_review"
	EntityApproved        EntityStatus = "approved"
	EntityRejected        EntityStatus = "rejected"
	EntityOnboarded       EntityStatus = "onboarded"
	EntityUnderMonitoring EntityStatus = "under_monitoring"
)

// EntityStatuses lists every entity status of the contract.
func EntityStatuses() []EntityStatus {
	return []EntityStatus{EntityDraft, EntityReadyForReview, EntityApproved, EntityRejected, EntityOnboarded, EntityUnderMonitoring}
}

// RegistrationStatus is what the commercial register says of the entity.
type RegistrationStatus string

const (
	RegistrationUnknown RegistrationStatus = "unknown"
	RegistrationValid   RegistrationStatus = "valid_status"
	RegistrationInvalid RegistrationStatus = "invalid_status"
	RegistrationExpired RegistrationStatus = "expired"
)

// RegistrationStatuses lists every registration status of the contract.
func RegistrationStatuses() []RegistrationStatus {
	return []RegistrationStatus{RegistrationUnknown, RegistrationValid, RegistrationInvalid, RegistrationExpired}
}

// SanctionsStatus summarises organisation screening.
type SanctionsStatus string

const (
	SanctionsNotRun      SanctionsStatus = "not_run"
	SanctionsClear       SanctionsStatus = "clear"
	SanctionsHit         SanctionsStatus = "hit"
	SanctionsNeedsReview SanctionsStatus = "needs_review"
)

// SanctionsStatuses lists every sanctions status of the contract.
func SanctionsStatuses() []SanctionsStatus {
	return []SanctionsStatus{SanctionsNotRun, SanctionsClear, SanctionsHit, SanctionsNeedsReview}
}

// RiskLevel is the outcome of a risk assessment.
type RiskLevel string

const (
	RiskLow    RiskLevel = "low"
	RiskMedium RiskLevel = "medium"
	RiskHigh   RiskLevel = "high"
)

// RiskLevels lists every risk level of the contract.
func RiskLevels() []RiskLevel {
	return []RiskLevel{RiskLow, RiskMedium, RiskHigh}
}

// RiskAssessment is set only by an assessment. An entity without one has never
// been assessed: no level is implied (the contract's risk level rule).
type RiskAssessment struct {
	Level      RiskLevel
	AssessedAt time.Time
}

// ScoreComponent is one line of the coverage score breakdown.
type ScoreComponent struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
}

// Score is verification coverage, 0-100, with how it was reached.
type Score struct {
	Value     int
	Breakdown []ScoreComponent
}

// Entity is a merchant identified by a registration number and a country.
type Entity struct {
	AccountID          int64
	ID                 int64
	RegistrationNumber string
	LegalName          string
	// Names are every name the business is known by, with where each came
	// from (the register's, the declared one): what screening screens.
	// LegalName is one of them (the register's when it answered).
	Names              []EntityName
	CountryCode        string // ISO 3166-1 alpha-2, upper case
	CountryID          int    // ISO 3166-1 numeric
	Status             EntityStatus
	RegistrationStatus RegistrationStatus
	SanctionsStatus    SanctionsStatus
	Score              *Score          // nil until scored
	Risk               *RiskAssessment // nil until assessed
	WebsiteURL         *string
	SocialURL          *string
	ActivitySummary    *string
	// DismissedMatches are screening matches an operator judged false
	// positives; the next screening excludes them.
	DismissedMatches []string
	// ConfirmedMatches are screening matches an operator judged true
	// positives (adjudicate_match): with DismissedMatches, what tells an
	// adjudicated match from an open one. A match is in one list at most.
	ConfirmedMatches []string
	// RelationshipEndedAt is when an operator recorded the end of the
	// business relationship (end_relationship), and RetainUntil how long
	// its records are then kept: its country's rule (RetentionYears)
	// after that end. Both nil while the relationship lasts, when nothing
	// of the entity expires.
	RelationshipEndedAt *time.Time
	RetainUntil         *time.Time
	// Parties are the people and companies behind the business (its
	// owners, partners, managers…); RelationshipsCount is the number of
	// them marked current, as stored (the store writes it from Parties in
	// the same item: CurrentParties).
	Parties []Party
	// Ownership is the beneficial owners as determined from Parties (nil
	// until a register's parties were read).
	Ownership          *Ownership
	RelationshipsCount int
	ReviewsCount       int
	DocumentsCount     int
	ChecksCount        int
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// Version increases with every operator change: concurrent decisions
	// are told apart by it.
	Version int64
	// DossierRev increases with every write that changes what the entity's
	// dossier shows (the entity, any of its checks or reviews, its score):
	// 1 when created. The dossier's ETags are of it (dossier.ETag), so a
	// client's If-None-Match is answered from the entity's item alone.
	DossierRev int64
}

// CheckStatus is where a verification check stands.
type CheckStatus string

const (
	CheckPending   CheckStatus = "pending"
	CheckRunning   CheckStatus = "running"
	CheckCompleted CheckStatus = "completed"
	CheckFailed    CheckStatus = "failed"
)

// CheckStatuses lists every check status of the contract.
func CheckStatuses() []CheckStatus {
	return []CheckStatus{CheckPending, CheckRunning, CheckCompleted, CheckFailed}
}

// CheckType names what a check verifies.
type CheckType string

const (
	// CheckRegistryLookup asks the commercial register for the entity's record.
	CheckRegistryLookup CheckType = "registry_lookup"
	// CheckOrganizationScreening screens the organisation against sanctions lists.
	CheckOrganizationScreening CheckType = "organization_screening"
)

// CheckTypes lists every check type the service runs.
func CheckTypes() []CheckType {
	return []CheckType{CheckRegistryLookup, CheckOrganizationScreening}
}

// Triggering reasons recorded with checks.
const (
	TriggerIntake            = "intake"
	TriggerOperatorRequested = "operator_requested"
	TriggerPeriodicReview    = "periodic_review"
	// TriggerProviderUpdate: a provider's later answer for a check that was
	// already complete (a re-screen), kept as a check of its own so the
	// answer the earlier one rested on is never overwritten.
	TriggerProviderUpdate = "provider_update"
)

// Check is one verification run against an external provider.
type Check struct {
	AccountID        int64
	ID               int64
	EntityID         int64
	ReviewID         *int64
	Type             CheckType
	ProviderKey      string
	Status           CheckStatus
	ProviderStatus   string
	TriggeringReason string
	// The party a party-scoped check targeted; all nil for entity-scoped checks.
	SubjectType        *string
	SubjectID          *int64
	SubjectDisplayName *string
	// Result is the sanitised provider result. A missing matches_count means
	// the provider has not answered, never zero.
	Result    map[string]any
	CheckedAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	// Evidence is the provider's raw answer, kept beside the check (in the
	// evidence table) when it is written; nil when there was no answer (a
	// timeout, an unreachable provider) or once read back.
	Evidence *Evidence
}

// ReviewPurpose says why a review was opened.
type ReviewPurpose string

const (
	ReviewInitial  ReviewPurpose = "initial"
	ReviewPeriodic ReviewPurpose = "periodic"
)

// ReviewPurposes lists every review purpose of the contract.
func ReviewPurposes() []ReviewPurpose {
	return []ReviewPurpose{ReviewInitial, ReviewPeriodic}
}

// ReviewStatus is where a review stands.
type ReviewStatus string

const (
	ReviewOpen       ReviewStatus = "open"
	ReviewInProgress ReviewStatus = "in_progress"
	ReviewEscalated  ReviewStatus = "escalated"
	ReviewCompleted  ReviewStatus = "completed"
	ReviewCancelled  ReviewStatus = "cancelled"
)

// ReviewStatuses lists every review status of the contract.
func ReviewStatuses() []ReviewStatus {
	return []ReviewStatus{ReviewOpen, ReviewInProgress, ReviewEscalated, ReviewCompleted, ReviewCancelled}
}

// Active reports whether a review still awaits a decision.
func (s ReviewStatus) Active() bool {
	return s == ReviewOpen || s == ReviewInProgress || s == ReviewEscalated
}

// Review outcomes, set when a review completes.
const (
	OutcomeApproved = "approved"
	OutcomeRejected = "rejected"
)

// Review is a human decision on an entity.
type Review struct {
	AccountID        int64
	ID               int64
	EntityID         int64
	Purpose          ReviewPurpose
	Status           ReviewStatus
	Outcome          *string
	OutcomeReason    *string
	AssignedUserID   *int64
	AssignedUserName *string
	NotesCount       int
	ChecksCount      int
	// Escalation is set while escalated: "supervisor" or "aml".
	Escalation *string
	// ChecksQueuedAt is when an operator last queued checks for the review.
	ChecksQueuedAt *time.Time
	StartedAt      *time.Time
	CompletedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Version        int64
	// TriggeringReason is what opened the review when it was not a person
	// or the schedule: TriggerProviderUpdate for one a screening answer
	// opened (see Review.DueNow); empty otherwise.
	TriggeringReason string
}

// Account is a tenant. Every other record belongs to exactly one account.
type Account struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	Settings  AccountSettings
	// Version increases with every change of the account's name, policies
	// or countries (an item written before versions reads as 0): an update
	// is conditioned on the version it read, so of two concurrent updates
	// the later is refused instead of overwriting the earlier.
	Version int64
}

// AccountSettings are an account's review policies.
type AccountSettings struct {
	// FourEyes lists the actions a second operator must approve. The
	// action "approve_high_risk" stands for approving a high-risk entity.
	FourEyes []string
	// ReviewIntervalDays is how often an entity under monitoring gets a
	// periodic review; 0 means never.
	ReviewIntervalDays int
	// DeclaredDecisions says whether the account accepts decisions that
	// are not signed with an operator's passkey, whose operator is only
	// declared by whoever started them (an execution typed in the AWS
	// console, the command line). False by default: every decision must be
	// signed. A four-eyes second approval is never accepted unsigned.
	DeclaredDecisions bool
	// SLADays is, per review purpose, how many days a review may stay
	// active before the queue tags it late; a purpose not listed has no
	// due date.
	SLADays map[ReviewPurpose]int
	// ExtendedRetentionYears extends how long entities are kept after
	// their relationship ends, where their country's rule allows it (the
	// EU's 5 years up to 10: RetentionRuleFor); 0 keeps every rule's own.
	ExtendedRetentionYears int
	// OwnershipThresholdPercent is the share from which a natural person
	// is a beneficial owner by ownership, in whole percent: 0 is the law's
	// 25 % (EU AMLR Art. 51, the Saudi rules); an account may set a lower
	// one (1 to 24), as a regime may for a higher-risk sector.
	OwnershipThresholdPercent int
}

// DefaultOwnershipThresholdPercent is the law's threshold of beneficial
// ownership: 25 %, or more.
const DefaultOwnershipThresholdPercent = 25

// OwnershipThreshold is the account's threshold of beneficial ownership in
// whole percent (DefaultOwnershipThresholdPercent unless it sets one).
func (s AccountSettings) OwnershipThreshold() int {
	if s.OwnershipThresholdPercent > 0 && s.OwnershipThresholdPercent < DefaultOwnershipThresholdPercent {
		return s.OwnershipThresholdPercent
	}
	return DefaultOwnershipThresholdPercent
}

// FourEyesApproveHighRisk in AccountSettings.FourEyes requires a second
// approver to approve a review of a high-risk entity.
const FourEyesApproveHighRisk = "approve_high_risk"

// Permissions an API key (or later an operator) may hold.
const (
	PermEntityView          = "entity.view"
	PermEntityCreate        = "entity.create"
	PermReviewView          = "entity.review.view"
	PermWebhookEndpointEdit = "webhook_endpoint.manage"
	PermWebhookDeliveryView = "webhook_delivery.view"
)

// APIKeyPermissions lists the permissions an API key can be given.
func APIKeyPermissions() []string {
	return []string{PermEntityView, PermEntityCreate, PermReviewView}
}

// APIKey is a credential of an account. Only the SHA-256 of the secret is kept.
type APIKey struct {
	// ID names the key in listings and commands without revealing it:
	// "key_" and the first 16 hex digits of its hash.
	ID          string
	Hash        string // lowercase hex SHA-256 of the whole key
	Prefix      string // the first characters, to recognise a key in listings
	AccountID   int64
	Permissions []string
	Description string
	CreatedAt   time.Time
	// RevokedAt is when the key stops working: now for a revoked key, later
	// for a key rotated with an overlap.
	RevokedAt *time.Time
}

// ActiveAt reports whether the key may be used at now.
func (k APIKey) ActiveAt(now time.Time) bool { return k.RevokedAt == nil || now.Before(*k.RevokedAt) }

// Has reports whether the key grants perm.
func (k APIKey) Has(perm string) bool {
	for _, p := range k.Permissions {
		if p == perm {
			return true
		}
	}
	return false
}

// CountryConfig is an account's setup for one country: whether entities may
// be created there, how registration numbers look, and which checks run at
// intake.
type CountryConfig struct {
	AccountID   int64
	CountryCode string // ISO 3166-1 alpha-2, upper case
	CountryID   int    // ISO 3166-1 numeric
	Active      bool
	// RegistrationPattern is a regular expression the whole registration
	// number must match; RegistrationMessage is the validation message when
	// it does not.
	RegistrationPattern string
	RegistrationMessage string
	IntakeChecks        []IntakeCheck
	UpdatedAt           time.Time
}

// IntakeCheck is one check run when an entity is created.
type IntakeCheck struct {
	Type        CheckType `json:"check_type"`
	ProviderKey string    `json:"provider_key"`
	TimeoutMS   int       `json:"timeout_ms"`
}

// EntityDetail is an entity with its checks (newest first) and its reviews
// (active before finished, newest first within each).
type EntityDetail struct {
	Entity  Entity
	Checks  []Check
	Reviews []Review
}

// EntityFilter narrows a listing of entities. Zero values do not filter.
type EntityFilter struct {
	RegistrationNumber string     // exact match
	CountryCode        string     // ISO 3166-1 alpha-2, upper case
	UpdatedSince       *time.Time // changed at or after
	// Cursor is a previous page's Next, continuing a walk from where that
	// page ended; one that does not fit the request is ignored.
	Cursor string
}

// EntityPage is one page of a listing, with the total across all pages.
type EntityPage struct {
	Entities []Entity
	Total    int
	// Next, when set, continues the listing at the next page cheaper than
	// its number would (an opaque cursor for the Link next URL).
	Next string
}

// IdempotencyState is where a request made with an Idempotency-Key stands.
type IdempotencyState string

const (
	IdempotencyInProgress IdempotencyState = "in_progress"
	IdempotencyCompleted  IdempotencyState = "completed"
)

// IdempotencyRecord is what is kept of a request made with an
// Idempotency-Key: a hash of the request and, once answered, the answer.
type IdempotencyRecord struct {
	AccountID   int64
	Key         string
	RequestHash string
	State       IdempotencyState
	Status      int
	Body        string
	CreatedAt   time.Time
	ExpiresAt   time.Time
}
