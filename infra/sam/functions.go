package sam

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

const functionsNote = `--------------------------------------------------------------- functions
deploy.Functions(). Each function may take exactly its catalogue's DynamoDB
actions on exactly its tables (one statement per grant, + /index/* when the
grant has Indexes), take exactly its S3 actions on exactly its buckets (and
use their keys, through S3 only), read exactly its secrets, send to exactly
its queues, read exactly its event sources (streams, or a queue) and send
to their on-failure queues, take exactly its actions on the decision
workflow (the state machine, or its executions), and is told exactly those
names: LOG_LEVEL, one variable per table and per bucket, its settings
(template parameters), its secrets' ARNs, the URLs of the queues it sends
to, the state machine's ARN if it drives it. SAM adds AWSLambdaBasicExecutionRole,
X-Ray's write access (Tracing), and for a DynamoDB or SQS event AWS's
managed stream or queue execution role.

Build: BuildMethod makefile. sam build runs make build-<LogicalId> (the
Makefile's "--- SAM ---" block), the very go build of make build, into
$(ARTIFACTS_DIR)/bootstrap; make sam-build checks the bytes are those of
build/<name>/bootstrap (BuildMethod go1.x cannot pass -tags or -ldflags).
CodeUri is the function's own directory, so sam build copies one main.go,
not the whole checkout; ContextPath and WorkingDirectory run make at the
repository root, where go build finds the module.`

// functions: one AWS::Serverless::Function per deploy.Functions() entry.
func functions() ([]Pair, error) {
	var out []Pair
	for i, f := range deploy.Functions() {
		p, err := function(f)
		if err != nil {
			return nil, fmt.Errorf("sam: function %s: %w", f.Name, err)
		}
		if i == 0 {
			p = p.Note(functionsNote)
		}
		out = append(out, p)
	}
	return out, nil
}

func function(f deploy.Function) (Pair, error) {
	env, err := environment(f)
	if err != nil {
		return Pair{}, err
	}
	statements, err := Statements(f)
	if err != nil {
		return Pair{}, err
	}
	props := []Pair{
		KV("CodeUri", "functions/"+f.Name),
		KV("Description", f.Description),
		KV("MemorySize", f.MemoryMB),
		KV("Timeout", f.TimeoutSeconds),
		KV("Environment", Map(KV("Variables", env))),
	}
	// A function that may do nothing beyond its logs has no policy of its
	// own (IAM refuses one without statements): SAM's execution role alone.
	if len(statements) > 0 {
		props = append(props, KV("Policies", List(Map(KV("Statement", statementList(statements))))))
	}
	events, err := Events(f)
	if err != nil {
		return Pair{}, err
	}
	if len(events) > 0 {
		props = append(props, KV("Events", Map(events...)))
	}
	p := resource(f.LogicalID, "AWS::Serverless::Function", Map(props...),
		KV("Metadata", Map(KV("BuildMethod", "makefile"), KV("ContextPath", "."), KV("WorkingDirectory", "."))))
	if len(events) == 0 {
		p = p.Note("No event: " + f.LogicalID + " is only invoked (by the state machine, or through the Lambda Invoke API).")
	}
	return p, nil
}

// environment: exactly f.EnvVarNames(), sorted: LOG_LEVEL as the CDK stack
// sets it, each table's name, each setting's parameter (settingValue), each
// secret's ARN, each queue's URL, the decision state machine's ARN.
func environment(f deploy.Function) (*yaml.Node, error) {
	values := map[string]*yaml.Node{deploy.LogLevelVar: node(stack.LogLevel)}
	for _, id := range f.TableIDs() {
		t, err := schema.TableByID(id)
		if err != nil {
			return nil, err
		}
		values[t.EnvVar] = Ref(deploy.TableLogicalID(id))
	}
	for _, id := range f.BucketIDs() {
		b := deploy.MustBucket(id)
		values[b.EnvVar] = Ref(b.LogicalID)
	}
	for _, s := range f.Settings {
		if r, routed := f.Route(); routed && s.DefaultsToStageURL {
			// The API's definition names the function: a cycle.
			return nil, fmt.Errorf("%s defaults to the stage's URL, but the route %s %s reaches the function", s.Parameter, r.Method, r.Path)
		}
		values[s.EnvVar] = settingValue(s)
	}
	for _, s := range f.Secrets {
		values[s.EnvVar] = Ref(deploy.SecretLogicalID(s.SecretID))
	}
	for _, id := range f.SendsTo {
		q, err := deploy.QueueByID(id)
		if err != nil {
			return nil, err
		}
		values[q.EnvVar] = Ref(q.LogicalID)
	}
	if len(f.Workflow) > 0 {
		values[deploy.DecisionStateMachineVar] = Ref(stack.DecisionStateMachineID)
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	if want := f.EnvVarNames(); strings.Join(names, ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("environment %v, the catalogue says %v", names, want)
	}
	pairs := make([]Pair, len(names))
	for i, k := range names {
		pairs[i] = KV(k, values[k])
	}
	return Map(pairs...), nil
}

// Statement is one Allow statement of a function's policy.
type Statement struct {
	Sid       string
	Actions   []string
	Resources []*yaml.Node
	// Condition, when set, is the statement's Condition block.
	Condition *yaml.Node
}

// Statements are a function's permissions in the order and shape of the
// CDK stack's (stack.Statements), less what SAM adds by itself (its logs,
// X-Ray): per Grant, its actions on its table (and <arn>/index/* with
// Indexes); per ObjectGrant, its object actions on the bucket's objects,
// its bucket actions on the bucket, and the bucket key's KMS actions,
// conditioned; GetSecretValue on its secrets; sending to each queue of
// SendsTo; per Stream source, reading that stream, and sending to their
// OnFailure queues (each once); with a Queue source, consuming it; its workflow actions
// on the state machine and on its executions (stack.WorkflowStatements).
func Statements(f deploy.Function) ([]Statement, error) {
	p := &policy{f: f, sids: stack.Sids{}}
	if err := p.tableGrants(); err != nil {
		return nil, err
	}
	if err := p.objectGrants(); err != nil {
		return nil, err
	}
	p.readSecrets()
	if err := p.queuesAndStreams(); err != nil {
		return nil, err
	}
	if a := f.WorkflowActionsOn(deploy.OnStateMachine); len(a) > 0 {
		p.add(stack.DriveDecisionWorkflowSid, a, Ref(stack.DecisionStateMachineID))
	}
	if a := f.WorkflowActionsOn(deploy.OnExecutions); len(a) > 0 {
		p.add(stack.DecisionExecutionsSid, a, Sub(decisionExecutionsArn))
	}
	return p.out, nil
}

// policy collects the statements of one function, in order, each Sid
// unique.
type policy struct {
	f    deploy.Function
	sids stack.Sids
	out  []Statement
}

func (p *policy) add(sid string, actions []string, resources ...*yaml.Node) {
	p.out = append(p.out, Statement{Sid: p.sids.Unique(sid), Actions: actions, Resources: resources})
}

// tableGrants: per Grant, its actions on its table (and its indexes),
// conditioned on its attributes as stack's (deploy.Grant.AttributesCondition).
func (p *policy) tableGrants() error {
	for _, g := range p.f.Grants {
		if _, err := schema.TableByID(g.Table); err != nil {
			return fmt.Errorf("grant: %w", err)
		}
		id := deploy.TableLogicalID(g.Table)
		resources := []*yaml.Node{GetAtt(id, "Arn")}
		if g.Indexes {
			resources = append(resources, Sub("${"+id+".Arn}/index/*"))
		}
		p.add(stack.GrantSid(g.Table), g.Actions, resources...)
		if len(g.Attributes) > 0 {
			p.out[len(p.out)-1].Condition = Map(
				KV("ForAllValues:StringEquals", Map(KV("dynamodb:Attributes", Strings(g.Attributes)))),
				KV("StringEqualsIfExists", Map(KV("dynamodb:ReturnValues", Strings(deploy.ReturnValuesAllowed())))))
		}
	}
	return nil
}

// objectGrants: per ObjectGrant, its object actions, its bucket actions
// and the bucket key's KMS actions, conditioned.
func (p *policy) objectGrants() error {
	for _, g := range p.f.Objects {
		b, ok := deploy.LookupBucket(g.Bucket)
		if !ok {
			return fmt.Errorf("grant on bucket %q, which is not in deploy.Buckets()", g.Bucket)
		}
		if a := g.ObjectActions(); len(a) > 0 {
			p.add(stack.ObjectsSid(b), a, Sub("${"+b.LogicalID+".Arn}/*"))
		}
		if a := g.BucketActions(); len(a) > 0 {
			p.add(stack.BucketSid(b), a, GetAtt(b.LogicalID, "Arn"))
		}
		if a := g.KeyActions(); len(a) > 0 {
			// The bucket's key, as S3 uses it for the caller: only through
			// S3 in this region, only for this bucket
			// (stack.BucketKeyCondition).
			cond := stack.BucketKeyCondition(Sub("s3.${AWS::Region}.amazonaws.com"), GetAtt(b.LogicalID, "Arn"))["StringEquals"].(map[string]any)
			p.add(stack.KeyForObjectsSid(b), a, GetAtt(stack.BucketKeyLogicalID(b), "Arn"))
			p.out[len(p.out)-1].Condition = Map(KV("StringEquals", Map(
				KV("kms:EncryptionContext:aws:s3:arn", cond["kms:EncryptionContext:aws:s3:arn"]),
				KV("kms:ViaService", cond["kms:ViaService"]),
			)))
		}
	}
	return nil
}

// readSecrets: one statement for all the function's secrets.
func (p *policy) readSecrets() {
	if len(p.f.Secrets) == 0 {
		return
	}
	var resources []*yaml.Node
	for _, s := range p.f.Secrets {
		resources = append(resources, Ref(deploy.SecretLogicalID(s.SecretID)))
	}
	p.add(stack.SecretsSid, []string{"secretsmanager:GetSecretValue"}, resources...)
}

// queuesAndStreams: sending to each queue of SendsTo, reading each stream
// source's stream, sending to their on-failure queues, and consuming the
// Queue source.
func (p *policy) queuesAndStreams() error {
	queue := func(id, use string) (deploy.Queue, error) {
		q, err := deploy.QueueByID(id)
		if err != nil {
			return q, fmt.Errorf("%s: %w", use, err)
		}
		return q, nil
	}
	for _, id := range p.f.SendsTo {
		q, err := queue(id, "sends to")
		if err != nil {
			return err
		}
		p.add(stack.SendToSid(q), stack.QueueSendActions(), GetAtt(q.LogicalID, "Arn"))
	}
	for _, src := range p.f.Streams {
		t, err := schema.TableByID(src.Table)
		if err != nil || t.Stream == "" {
			return fmt.Errorf("stream source: table %q has no stream (%v)", src.Table, err)
		}
		p.add(stack.ReadStreamSid(src.Table), stack.StreamReadActions(), GetAtt(deploy.TableLogicalID(src.Table), "StreamArn"))
	}
	for _, id := range stack.OnFailureQueues(p.f) {
		q, err := queue(id, "on-failure")
		if err != nil {
			return err
		}
		p.add(stack.OnFailureSid(q), stack.QueueSendActions(), GetAtt(q.LogicalID, "Arn"))
	}
	if src := p.f.Queue; src != nil {
		q, err := queue(src.Queue, "consumes")
		if err != nil {
			return err
		}
		p.add(stack.ConsumeSid(q), stack.QueueConsumeActions(), GetAtt(q.LogicalID, "Arn"))
	}
	return nil
}

// decisionExecutionsArn matches every execution of the decision state
// machine, as DecisionWorkflow.ExecutionsArn does in the CDK stack.
const decisionExecutionsArn = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${" + stack.DecisionStateMachineID + ".Name}:*"

func statementList(statements []Statement) *yaml.Node {
	out := List()
	for _, s := range statements {
		resources := make([]any, len(s.Resources))
		for i, r := range s.Resources {
			resources[i] = r
		}
		var st []Pair
		if s.Sid != "" { // as CDK writes the statements it adds itself
			st = append(st, KV("Sid", s.Sid))
		}
		st = append(st,
			KV("Effect", "Allow"),
			KV("Action", s.Actions),
			KV("Resource", FlowList(resources...)),
		)
		if s.Condition != nil {
			st = append(st, KV("Condition", s.Condition))
		}
		out.Content = append(out.Content, Map(st...))
	}
	return out
}
