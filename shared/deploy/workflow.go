package deploy

import "fmt"

// DecisionStateMachineVar holds the decision state machine's ARN in the
// environment of a function that drives the workflow (Function.Workflow).
const DecisionStateMachineVar = "DECISION_STATE_MACHINE_ARN"

// The Step Functions actions a function may take on the decision workflow.
const (
	// StatesStartExecution starts an operator action's execution.
	StatesStartExecution = "states:StartExecution"
	// StatesDescribeExecution reads where an execution stands.
	StatesDescribeExecution = "states:DescribeExecution"
	// StatesSendTaskSuccess and StatesSendTaskFailure answer the task
	// token of an execution waiting for a second approval.
	StatesSendTaskSuccess = "states:SendTaskSuccess"
	StatesSendTaskFailure = "states:SendTaskFailure"
)

// WorkflowScope is what IAM authorizes a workflow action on.
type WorkflowScope int

const (
	// OnStateMachine: the state machine's ARN.
	OnStateMachine WorkflowScope = iota + 1
	// OnExecutions: its executions' ARNs,
	// arn:<partition>:states:<region>:<account>:execution:<state machine name>:<execution name>.
	OnExecutions
)

// WorkflowActions are the actions a function may be given on the decision
// workflow, each with what IAM authorizes it on.
func WorkflowActions() map[string]WorkflowScope {
	return map[string]WorkflowScope{
		StatesStartExecution:    OnStateMachine,
		StatesDescribeExecution: OnExecutions,
		// A callback task's token is answered on the state machine whose
		// execution waits on it (an activity's token on the activity's
		// ARN), as CDK's StateMachine.grantTaskResponse grants it: narrower
		// than the "*" IAM's action table suggests, which would let the
		// role answer any workflow's tasks in the account.
		StatesSendTaskSuccess: OnStateMachine,
		StatesSendTaskFailure: OnStateMachine,
	}
}

// WorkflowActionsOn lists the function's workflow actions that IAM
// authorizes on scope, in catalogue order. An action WorkflowActions does
// not know is a catalogue mistake: it panics, naming it, rather than leave
// the action without a grant.
func (f Function) WorkflowActionsOn(scope WorkflowScope) []string {
	known := WorkflowActions()
	var out []string
	for _, a := range f.Workflow {
		s, ok := known[a]
		if !ok {
			panic(fmt.Sprintf("deploy: %s: %q is not a workflow action", f.Name, a))
		}
		if s == scope {
			out = append(out, a)
		}
	}
	return out
}
