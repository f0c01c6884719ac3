package domain

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ActionReviewClaim is how trails written before #35 record an operator
// taking the oldest unassigned open review of the queue ("Take the next
// one"): one record for its assign and start. A claim is now recorded as
// the two actions, ActionAssign then ActionStart, known by the session
// (IdentitySession), in the same write.
const ActionReviewClaim Action = "review.claim"

// ClaimAction reports whether a is one a queue claim records: the only
// actions an operator takes in a session without signing them
// (IdentitySession). Anything else so recorded was not the service's.
func ClaimAction(a Action) bool {
	return a == ActionAssign || a == ActionStart || a == ActionReviewClaim
}

// QueueQuery asks the store for a stretch of an account's queue: its active
// reviews, oldest first, after a position, narrowed by filters. The review's
// own fields (status, purpose, assignee, escalation, country) are filtered as
// the index is read; the entity's risk and sanctions status, which change on
// the entity, only on the entities of the stretch.
type QueueQuery struct {
	AccountID int64
	// After is the queue position the stretch starts after; "" starts at
	// the oldest.
	After string
	// Limit is how many entries are wanted, 1 to QueueMaxLimit.
	Limit int
	// Status is one of the active statuses, or "" for any.
	Status  ReviewStatus
	Purpose ReviewPurpose
	// AssignedTo keeps the reviews assigned to that operator; Unassigned
	// those assigned to no one; neither keeps both.
	AssignedTo int64
	Unassigned bool
	// Escalated, when set, keeps the reviews escalated to AML (true) or
	// those that are not (false).
	Escalated *bool
	Country   string
	Risk      RiskLevel
	Sanctions SanctionsStatus
}

// QueueMaxLimit bounds a stretch of the queue.
const QueueMaxLimit = 100

// QueueEntry is one review of the queue with what the console shows of its
// entity.
type QueueEntry struct {
	Review Review
	// Position is the review's place in the queue (QueuePosition).
	Position  string
	LegalName string
	Country   string
	// Risk is "" for an entity never assessed.
	Risk      RiskLevel
	Sanctions SanctionsStatus
}

// QueueSlice is a stretch of the queue. Next is the position to continue
// after, "" when the queue holds nothing more; a stretch that read all it
// may before filling up has a Next, and may have no entry.
type QueueSlice struct {
	Entries []QueueEntry
	Next    string
}

// QueuePosition is a review's place in its account's queue:
// "<created_at>#<review id, 20 digits>", so string order is oldest first and
// no two reviews share a place.
func QueuePosition(createdAt time.Time, reviewID int64) string {
	return fmt.Sprintf("%s#%020d", FormatTime(createdAt), reviewID)
}

// ParseQueuePosition reads a position written by QueuePosition, and only
// such a one: anything else is an error.
func ParseQueuePosition(s string) (time.Time, int64, error) {
	at, id, ok := strings.Cut(s, "#")
	if !ok || len(id) != 20 {
		return time.Time{}, 0, fmt.Errorf("queue position %q: not <time>#<20 digits>", s)
	}
	t, err := time.Parse(TimeLayout, at)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("queue position %q: %w", s, err)
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || QueuePosition(t, n) != s {
		return time.Time{}, 0, fmt.Errorf("queue position %q: not a review id", s)
	}
	return t, n, nil
}
