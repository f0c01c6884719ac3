// Package deploy describes each function as it is deployed: its name, its
// CloudFormation logical id, its size, and exactly which DynamoDB actions it
// may take on which tables, its settings, secrets, queues, event sources and
// API routes. The CDK stack builds its functions and IAM policies from it,
// infra/sam generates template.yaml from it, and the runtime-emulator test
// gives each artifact the environment it describes.
package deploy

import (
	"fmt"
	"slices"
	"sort"

	"github.com/evs-kyb/evs/shared/schema"
)

// Grant allows actions on a table (and, with Indexes, on its indexes, which
// Query needs when it reads one).
type Grant struct {
	Table   string // schema table id
	Actions []string
	Indexes bool
	// Attributes, when set, are the only attributes the actions may name
	// (IAM's dynamodb:Attributes, every value among them): an UpdateItem
	// that may change these and nothing else of an item.
	Attributes []string
}

// AttributesCondition is the IAM condition of a grant with Attributes (nil
// without): every attribute the request names is one of them, and it asks
// back no more than those (an UpdateItem answering ALL_OLD or ALL_NEW would
// read the whole item).
func (g Grant) AttributesCondition() map[string]any {
	if len(g.Attributes) == 0 {
		return nil
	}
	return map[string]any{
		"ForAllValues:StringEquals": map[string]any{"dynamodb:Attributes": g.Attributes},
		"StringEqualsIfExists":      map[string]any{"dynamodb:ReturnValues": ReturnValuesAllowed()},
	}
}

// ReturnValuesAllowed are what an attribute-limited grant may ask back.
func ReturnValuesAllowed() []string { return []string{"NONE", "UPDATED_OLD", "UPDATED_NEW"} }

// StreamSource feeds a function from a table's stream.
type StreamSource struct {
	Table     string
	BatchSize int
	// A failing batch is retried at most MaxRetries times, split in two on
	// each error (bisect), then its records go to OnFailure (a queue id).
	MaxRetries   int
	MaxRecordAge int // seconds
	OnFailure    string
}

// QueueSource feeds a function from a queue, reporting failures per message.
type QueueSource struct {
	Queue     string
	BatchSize int
}

// Function is one Lambda function.
type Function struct {
	// Name is the directory under functions/ and under build/.
	Name string
	// LogicalID is the function's CloudFormation logical id, the same in the
	// CDK stack and in template.yaml.
	LogicalID      string
	Description    string
	MemoryMB       int
	TimeoutSeconds int
	Grants         []Grant
	// Objects are its grants on buckets' objects (and on their keys).
	Objects  []ObjectGrant
	Settings []Setting
	Secrets  []Secret
	// SendsTo lists the queues it sends to (their URLs in its environment).
	SendsTo []string
	// Workflow lists the Step Functions actions it takes on the decision
	// workflow (WorkflowActions), each on what IAM authorizes it on: the
	// state machine, or its executions. A function that has any is told
	// the state machine's ARN (DecisionStateMachineVar).
	Workflow []string
	// Streams are the table streams that feed it, each a mapping of its
	// own; Queue is the queue that does. A function has streams or a
	// queue, not both.
	Streams []StreamSource
	Queue   *QueueSource
	// LogRetentionDays, when set, keeps its log group's events that long
	// instead of the stack's default (a CloudWatch Logs retention value).
	LogRetentionDays int
	// RefusesWithErrors: the function answers a refused request (an
	// invalid, forbidden or conflicting one) with a named Lambda function
	// error by design, logged at INFO, so its Lambda Errors count refusals
	// too and are not alarmed on. Its alarm counts its faults instead: the
	// lines it logs at ERROR and its timeouts.
	RefusesWithErrors bool
}

// Runtime, architecture and handler of every function: a Go binary named
// bootstrap on Amazon Linux 2023, arm64.
const (
	Runtime      = "provided.al2023"
	Architecture = "arm64"
	Handler      = "bootstrap"
)

// LogLevelVar is set on every function besides its tables.
const LogLevelVar = "LOG_LEVEL"

// Lookup returns the function named name.
func Lookup(name string) (Function, bool) {
	for _, f := range Functions() {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// FunctionByName returns the function named name, or an error naming it.
func FunctionByName(name string) (Function, error) {
	if f, ok := Lookup(name); ok {
		return f, nil
	}
	return Function{}, fmt.Errorf("deploy: no function %q in Functions()", name)
}

// MustFunction is FunctionByName for initialization (a main, a package's
// constructor): a miss panics instead of becoming a zero Function whose
// zero timeout or memory would be silently used.
func MustFunction(name string) Function { return must(FunctionByName(name)) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err.Error())
	}
	return v
}

// TableIDs lists the tables the function uses, sorted.
func (f Function) TableIDs() []string {
	var out []string
	for _, g := range f.Grants {
		out = append(out, g.Table)
	}
	return sortedUnique(out)
}

// BucketIDs lists the buckets whose objects the function may use, sorted.
func (f Function) BucketIDs() []string {
	var out []string
	for _, g := range f.Objects {
		out = append(out, g.Bucket)
	}
	return sortedUnique(out)
}

// sortedUnique sorts ids and drops repeats.
func sortedUnique(ids []string) []string {
	sort.Strings(ids)
	return slices.Compact(ids)
}

// EnvVarNames lists the environment variables the function is given: one per
// table it uses, one per bucket, its settings, its secrets' ARNs, the URLs
// of the queues it sends to, the decision state machine's ARN if it drives
// the workflow, and the log level.
func (f Function) EnvVarNames() []string {
	out := []string{LogLevelVar}
	for _, id := range f.TableIDs() {
		out = append(out, schema.MustTable(id).EnvVar)
	}
	for _, id := range f.BucketIDs() {
		out = append(out, MustBucket(id).EnvVar)
	}
	for _, s := range f.Settings {
		out = append(out, s.EnvVar)
	}
	for _, s := range f.Secrets {
		out = append(out, s.EnvVar)
	}
	for _, id := range f.SendsTo {
		out = append(out, MustQueue(id).EnvVar)
	}
	if len(f.Workflow) > 0 {
		out = append(out, DecisionStateMachineVar)
	}
	sort.Strings(out)
	return out
}

// Route is the API route the function serves, if it serves one.
func (f Function) Route() (Route, bool) { return RouteFor(f.Name) }
