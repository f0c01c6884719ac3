package stack

import (
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/deploy"
)

// The ids (Sid) of the roles' statements, which infra/sam writes too: an
// operator reading a policy in the console or in template.yaml sees the
// same names.
const (
	SecretsSid          = "ReadSecrets"
	OwnLogsSid          = "WriteOwnLogs"
	InvokeDecisionSid   = "InvokeDecision"
	PublishApprovalsSid = "PublishApprovals"
	// A function driving the decision workflow: its actions on the state
	// machine, and on the state machine's executions.
	DriveDecisionWorkflowSid = "DriveDecisionWorkflow"
	DecisionExecutionsSid    = "DecisionExecutions"
)

// GrantSid names a grant's statement after its table ("inbound_webhooks"
// is "DynamoInboundWebhooks").
func GrantSid(table string) string {
	return "Dynamo" + strings.TrimSuffix(deploy.TableLogicalID(table), "Table")
}

// ReadStreamSid names the statement reading a table's stream
// ("ReadReviewsStream").
func ReadStreamSid(table string) string {
	return "Read" + StreamName(table)
}

// SendToSid, OnFailureSid and ConsumeSid name the statements sending to,
// sending failed batches to, and consuming a queue.
func SendToSid(q deploy.Queue) string    { return "SendTo" + q.LogicalID }
func OnFailureSid(q deploy.Queue) string { return "OnFailureTo" + q.LogicalID }
func ConsumeSid(q deploy.Queue) string   { return "Consume" + q.LogicalID }

// Sids counts the ids used in one policy.
type Sids map[string]int

// Unique is sid, or sid<n> for its n-th use: Sids are unique within a
// policy (a function may have two grants on one table).
func (used Sids) Unique(sid string) string {
	used[sid]++
	if n := used[sid]; n > 1 {
		return fmt.Sprintf("%s%d", sid, n)
	}
	return sid
}
