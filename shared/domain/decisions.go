package domain

import "time"

// Operator permissions: what a person deciding on reviews may do.
const (
	PermReviewDecide = "entity.review.decide"
	PermReviewAssign = "entity.review.assign"
	PermRiskAssess   = "entity.risk.assess"
	PermProfileEdit  = "entity.profile.edit"
)

// PermAccountSettingsManage lets an operator change the account's settings
// in the settings area (its countries).
const PermAccountSettingsManage = "account.settings.manage"

// OperatorPermissions lists the permissions an operator can be given.
func OperatorPermissions() []string {
	return []string{PermReviewDecide, PermReviewAssign, PermRiskAssess, PermProfileEdit, PermWebhookEndpointEdit, PermWebhookDeliveryView,
		PermAccountSettingsManage}
}

// Operator is a person of an account who decides on reviews.
type Operator struct {
	AccountID   int64
	ID          int64
	Name        string
	Permissions []string
	CreatedAt   time.Time
	// DisabledAt is set once the operator may no longer act.
	DisabledAt *time.Time
	// Version increases with every change: concurrent changes are told
	// apart by it.
	Version int64
}

// Can reports whether the operator holds perm; a disabled operator holds
// nothing.
func (o Operator) Can(perm string) bool {
	if o.DisabledAt != nil {
		return false
	}
	for _, p := range o.Permissions {
		if p == perm {
			return true
		}
	}
	return false
}

// Action is an operator action.
type Action string

const (
	ActionAssign             Action = "assign"
	ActionStart              Action = "start"
	ActionEscalate           Action = "escalate"
	ActionEscalateToAML      Action = "escalate_to_aml"
	ActionApprove            Action = "approve"
	ActionReject             Action = "reject"
	ActionCancel             Action = "cancel"
	ActionQueueChecks        Action = "queue_checks"
	ActionAdjudicateMatch    Action = "adjudicate_match"
	ActionAssessRisk         Action = "assess_risk"
	ActionUpdateProfile      Action = "update_profile"
	ActionOpenPeriodicReview Action = "open_periodic_review"
	// ActionRecordParty adds, corrects or ends one of the entity's parties
	// (shared/decisions: recordParty).
	ActionRecordParty Action = "record_party"
)

// Actions lists every operator action.
func Actions() []Action {
	return []Action{ActionAssign, ActionStart, ActionEscalate, ActionEscalateToAML, ActionApprove, ActionReject,
		ActionCancel, ActionQueueChecks, ActionAdjudicateMatch, ActionAssessRisk, ActionUpdateProfile, ActionOpenPeriodicReview,
		ActionEndRelationship, ActionRecordParty}
}

// Escalation levels of an escalated review.
const (
	EscalationSupervisor = "supervisor"
	EscalationAML        = "aml"
)

// Match verdicts of an adjudication.
const (
	VerdictTruePositive  = "true_positive"
	VerdictFalsePositive = "false_positive"
)

// AuditRecord is the trail of one operator or administrator action: who,
// what, when, why, and what changed, written in the same transaction as the
// change.
type AuditRecord struct {
	AccountID    int64
	ActionID     string // the request or execution id; an action is applied once per id
	Action       Action
	OperatorID   int64
	OperatorName string
	// Actor names the administrator of an admin command (as the command
	// document states it) and RequestID the Lambda request that ran it, so
	// CloudTrail's record of the Invoke call can be found.
	Actor            string
	RequestID        string
	SecondApproverID *int64
	ReviewID         *int64
	EntityID         int64
	Reason           string
	Before           map[string]any
	After            map[string]any
	At               time.Time
	// SeenETag is the dossier's ETag the operator named as seen, if any;
	// DossierETag the dossier's ETag as the decision read it (empty for
	// actions on no entity). Equal when the operator decided on what was
	// current. DossierSHA256 is the hex SHA-256 of the dossier's Markdown
	// at that revision: the snapshot, checkable without the revision scheme.
	SeenETag      string
	DossierETag   string
	DossierSHA256 string
	// DossierMarkdown is the dossier's Markdown as decided on, kept beside
	// the record (empty past MaxKeptDossier): its hash is DossierSHA256,
	// which the chain covers, so it is checked without being hashed twice.
	DossierMarkdown string
	// Identity says how the operator of a decision is known (passkey or
	// declared); empty for records that are not decisions.
	Identity Identity
	// DecisionDocument is the decision document as signed (its SHA-256 is
	// each signature's digest), and Signatures the maker's and, for four
	// eyes, the second operator's assertions over it.
	DecisionDocument string
	Signatures       []DecisionSignature
}

// MaxKeptDossier bounds the dossier Markdown an audit record keeps, well
// inside DynamoDB's 400 KB item; a larger one keeps its hash alone.
const MaxKeptDossier = 300 << 10
