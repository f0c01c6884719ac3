package stack

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// LogLevel is every function's LOG_LEVEL.
const LogLevel = "info"

// ModulePath is the module whose root holds build/.
const ModulePath = "github.com/evs-kyb/evs"

// FunctionsProps configures the functions.
type FunctionsProps struct {
	// AssetRoot holds <name>/bootstrap per function; empty means build/ at
	// the repository root (what `make build` writes). Tests point it at a
	// folder of empty files.
	AssetRoot string
	// Tables maps schema table ids to their tables (Data.Tables).
	Tables map[string]awsdynamodb.Table
	// Buckets maps deploy.Bucket.ID to its bucket (Buckets.Buckets).
	Buckets map[string]awss3.Bucket
	// BucketKeys maps deploy.Bucket.ID to the key that encrypts the bucket
	// (Buckets.Keys), which S3 uses as the caller.
	BucketKeys map[string]awskms.Key
	// Secrets maps deploy.Secret.SecretID to its secret (Secrets.Secrets).
	Secrets map[string]awssecretsmanager.Secret
	// Queues maps deploy.Queue.ID to its queue (Queues.Queues): the queues
	// functions send to, consume, or send their stream failures to.
	Queues map[string]awssqs.Queue
	// Settings maps deploy.Setting.Parameter to its value; a missing one
	// takes its Default.
	Settings map[string]string
	// Retain keeps the log groups when the stack is deleted (every stage but an ephemeral one).
	Retain bool
}

// Function is one deployed function and what it was built from.
type Function struct {
	Spec     deploy.Function
	Function awslambda.Function
	Role     awsiam.Role
	LogGroup awslogs.LogGroup
}

// Functions holds every function of deploy.Functions().
type Functions struct {
	constructs.Construct
	// Functions maps deploy.Function.Name to the function.
	Functions map[string]*Function
	// settings are FunctionsProps.Settings, for DefaultToStageURL.
	settings map[string]string
}

// NewFunctions creates one Lambda function per deploy.Functions() entry:
// provided.al2023 on arm64, handler bootstrap, code from
// <AssetRoot>/<name>, memory and timeout from the catalogue, X-Ray tracing,
// its own log group (one month), and a role of its own whose only
// permissions are written here by hand from the catalogue (Statements):
// exactly the Grant's DynamoDB actions on exactly its tables (and their
// indexes when the Grant says so), secretsmanager:GetSecretValue on exactly
// its secrets, exactly its S3 actions on exactly its buckets (and their
// keys, through S3), sending to exactly the queues it sends to, reading
// exactly its event sources (streams, or a queue) and sending to exactly
// their on-failure queues, and writing to its own log group. CDK adds the X-Ray write actions
// tracing needs. The event source mappings themselves are NewEventSources',
// the decision workflow's actions NewDecisionWorkflow's.
// Logical ids are deploy's (<LogicalID>, <LogicalID>Role,
// <LogicalID>LogGroup).
//
// It panics, naming `make build`, when an artifact is missing.
func NewFunctions(scope constructs.Construct, id *string, props *FunctionsProps) *Functions {
	if props == nil {
		props = &FunctionsProps{}
	}
	root := props.AssetRoot
	if root == "" {
		root = DefaultAssetRoot()
	}
	if err := CheckAssets(root); err != nil {
		panic(err.Error())
	}

	fs := &Functions{Construct: constructs.NewConstruct(scope, id), Functions: map[string]*Function{}, settings: props.Settings}
	for _, spec := range deploy.Functions() {
		fs.Functions[spec.Name] = newFunction(fs.Construct, spec, root, props)
	}
	return fs
}

// DefaultToStageURL gives every setting that defaults to the stage's URL
// (deploy.Setting.DefaultsToStageURL) and was given no value that URL,
// once the API exists (NewServiceStack passes Api.StageURL); until then
// such a setting holds its Default (""). It panics for a function an API
// route reaches: its environment would wait for the API, which waits for
// the function (a dependency cycle CloudFormation refuses).
func (fs *Functions) DefaultToStageURL(url *string) {
	for _, spec := range deploy.Functions() {
		for _, s := range spec.Settings {
			if !s.DefaultsToStageURL || fs.settings[s.Parameter] != "" {
				continue
			}
			if r, routed := spec.Route(); routed {
				panic(fmt.Sprintf("infra: %s: %s defaults to the stage's URL, but the route %s %s reaches the function (a dependency cycle)",
					spec.Name, s.Parameter, r.Method, r.Path))
			}
			f, ok := fs.Functions[spec.Name]
			if !ok {
				panic("infra: no function " + spec.Name)
			}
			f.Function.AddEnvironment(jsii.String(s.EnvVar), url, nil)
		}
	}
}

func newFunction(scope constructs.Construct, spec deploy.Function, root string, props *FunctionsProps) *Function {
	retention := logRetention()
	if spec.LogRetentionDays > 0 {
		retention = retentionDays(spec.LogRetentionDays)
	}
	logs := awslogs.NewLogGroup(scope, jsii.String(spec.LogicalID+"LogGroup"), &awslogs.LogGroupProps{
		Retention:     retention,
		RemovalPolicy: removal(props.Retain),
	})
	logs.Node().DefaultChild().(awslogs.CfnLogGroup).OverrideLogicalId(jsii.String(spec.LogicalID + "LogGroup"))

	// A role of its own with no managed policy: AWSLambdaBasicExecutionRole
	// would let it write to any log group.
	role := awsiam.NewRole(scope, jsii.String(spec.LogicalID+"Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Role of " + spec.Name + ": only its own tables, secrets, queues, event source and log group"),
	})
	role.Node().DefaultChild().(awsiam.CfnRole).OverrideLogicalId(jsii.String(spec.LogicalID + "Role"))
	for _, s := range Statements(spec, Resources{Tables: props.Tables, Buckets: props.Buckets, BucketKeys: props.BucketKeys, Secrets: props.Secrets, Queues: props.Queues}, logs) {
		role.AddToPrincipalPolicy(s)
	}

	fn := awslambda.NewFunction(scope, jsii.String(spec.LogicalID), &awslambda.FunctionProps{
		Description:  jsii.String(spec.Description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String(deploy.Handler),
		Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(root, spec.Name)), nil),
		MemorySize:   jsii.Number(float64(spec.MemoryMB)),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(float64(spec.TimeoutSeconds))),
		Environment:  Environment(spec, Resources{Tables: props.Tables, Buckets: props.Buckets, Secrets: props.Secrets, Queues: props.Queues}, props.Settings),
		Tracing:      awslambda.Tracing_ACTIVE,
		LogGroup:     logs,
		Role:         role,
	})
	fn.Node().DefaultChild().(awslambda.CfnFunction).OverrideLogicalId(jsii.String(spec.LogicalID))
	if p, ok := role.Node().TryFindChild(jsii.String("DefaultPolicy")).(awsiam.Policy); ok && p != nil {
		p.Node().DefaultChild().(awsiam.CfnPolicy).OverrideLogicalId(jsii.String(spec.LogicalID + "RoleDefaultPolicy"))
	}
	return &Function{Spec: spec, Function: fn, Role: role, LogGroup: logs}
}

// Actions of the queue and stream statements, each the least its user needs.

// QueueSendActions: sending to a queue (SendMessageBatch is authorized as
// sqs:SendMessage too).
func QueueSendActions() []string { return []string{"sqs:SendMessage"} }

// QueueConsumeActions: what Lambda's poller does, as the function's role,
// for an SQS event source. Not ChangeMessageVisibility: neither the poller
// nor the handler changes a message's visibility.
func QueueConsumeActions() []string {
	return []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}
}

// StreamReadActions: what Lambda's poller does, as the function's role, for
// a DynamoDB stream event source.
func StreamReadActions() []string {
	return []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}
}

// Resources are the stack's resources a function's permissions and
// environment name.
type Resources struct {
	Tables  map[string]awsdynamodb.Table
	Buckets map[string]awss3.Bucket
	// BucketKeys maps deploy.Bucket.ID to the key that encrypts it.
	BucketKeys map[string]awskms.Key
	Secrets    map[string]awssecretsmanager.Secret
	Queues     map[string]awssqs.Queue
}

// BucketKeyCondition is the condition of a statement granting the use of a
// bucket's key: only by S3 in this region (kms:ViaService) and only for
// that bucket's objects (with an S3 Bucket Key, the encryption context S3
// gives KMS is the bucket's ARN).
func BucketKeyCondition(region, bucketArn any) map[string]any {
	return map[string]any{"StringEquals": map[string]any{
		"kms:ViaService":                   region,
		"kms:EncryptionContext:aws:s3:arn": bucketArn,
	}}
}

// Statements are the permissions a function's role is given by hand:
// per Grant, its actions on its table's ARN (and <arn>/index/* with
// Indexes); per ObjectGrant, its object actions on the bucket's objects
// (<arn>/*), its bucket actions (listings) on the bucket's ARN, and the
// KMS actions S3 takes with the bucket's key as the caller
// (ObjectGrant.KeyActions) on that key, conditioned (BucketKeyCondition);
// secretsmanager:GetSecretValue on the function's secrets;
// QueueSendActions() on each queue of SendsTo; per Stream source,
// StreamReadActions() on that table's stream ARN (the stream, not every
// stream of the table or the account), and QueueSendActions() on each of
// their OnFailure queues, once (Lambda sends the failed batches'
// descriptions as the function's role); with a Queue source,
// QueueConsumeActions() on that queue; and logs:CreateLogStream,
// logs:PutLogEvents on its own log group.
//
// No KMS statement for the tables: the key policy of a table's own key
// already lets this account's principals use it through DynamoDB
// (newTableKey), as the AWS-managed key's does, so the table grants alone
// decide who reads or writes the table.
func Statements(spec deploy.Function, res Resources, logs awslogs.LogGroup) []awsiam.PolicyStatement {
	p := &policy{spec: spec, res: res, sids: Sids{}}
	p.tableGrants()
	p.objectGrants()
	p.readSecrets()
	p.queuesAndStreams()
	if logs != nil {
		p.statement(OwnLogsSid, []string{"logs:CreateLogStream", "logs:PutLogEvents"}, logs.LogGroupArn())
	}
	return p.out
}

// policy collects the statements of one function's role, in order.
type policy struct {
	spec deploy.Function
	res  Resources
	sids Sids
	out  []awsiam.PolicyStatement
}

func (p *policy) statement(sid string, actions []string, resources ...*string) {
	p.out = append(p.out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String(sid),
		Effect:    awsiam.Effect_ALLOW,
		Actions:   jsii.Strings(actions...),
		Resources: &resources,
	}))
}

// queue is the stack's queue id and its catalogue entry; the function uses
// it as use says.
func (p *policy) queue(id, use string) (awssqs.Queue, deploy.Queue) {
	q, ok := p.res.Queues[id]
	qs, known := deploy.LookupQueue(id)
	if !ok || !known {
		panic(fmt.Sprintf("infra: %s: %s queue %q, which the stack does not have", p.spec.Name, use, id))
	}
	return q, qs
}

// tableGrants: per Grant, its actions on its table's ARN (and
// <arn>/index/* with Indexes), conditioned on its attributes if it has any.
func (p *policy) tableGrants() {
	for _, g := range p.spec.Grants {
		t, ok := p.res.Tables[g.Table]
		if !ok {
			panic(fmt.Sprintf("infra: %s: grant on table %q, which the stack does not have", p.spec.Name, g.Table))
		}
		resources := []*string{t.TableArn()}
		if g.Indexes {
			resources = append(resources, jsii.String(*t.TableArn()+"/index/*"))
		}
		p.statement(p.sids.Unique(GrantSid(g.Table)), g.Actions, resources...)
		if cond := g.AttributesCondition(); cond != nil {
			p.out[len(p.out)-1].AddConditions(&cond)
		}
	}
}

// objectGrants: per ObjectGrant, its object actions, its bucket actions
// and the KMS actions S3 takes with the bucket's key as the caller.
func (p *policy) objectGrants() {
	for _, g := range p.spec.Objects {
		b, known := deploy.LookupBucket(g.Bucket)
		bucket, ok := p.res.Buckets[g.Bucket]
		key, hasKey := p.res.BucketKeys[g.Bucket]
		if !known || !ok || !hasKey {
			panic(fmt.Sprintf("infra: %s: grant on bucket %q, which the stack does not have (or not its key)", p.spec.Name, g.Bucket))
		}
		if a := g.ObjectActions(); len(a) > 0 {
			p.statement(p.sids.Unique(ObjectsSid(b)), a, bucket.ArnForObjects(jsii.String("*")))
		}
		if a := g.BucketActions(); len(a) > 0 {
			p.statement(p.sids.Unique(BucketSid(b)), a, bucket.BucketArn())
		}
		if a := g.KeyActions(); len(a) > 0 {
			cond := BucketKeyCondition(s3ViaService(), bucket.BucketArn())
			p.out = append(p.out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:        jsii.String(p.sids.Unique(KeyForObjectsSid(b))),
				Effect:     awsiam.Effect_ALLOW,
				Actions:    jsii.Strings(a...),
				Resources:  &[]*string{key.KeyArn()},
				Conditions: &cond,
			}))
		}
	}
}

// readSecrets: one statement for all the function's secrets.
func (p *policy) readSecrets() {
	if len(p.spec.Secrets) == 0 {
		return
	}
	var resources []*string
	for _, s := range p.spec.Secrets {
		secret, ok := p.res.Secrets[s.SecretID]
		if !ok {
			panic(fmt.Sprintf("infra: %s: secret %q, which the stack does not have", p.spec.Name, s.SecretID))
		}
		resources = append(resources, secret.SecretArn())
	}
	p.statement(SecretsSid, []string{"secretsmanager:GetSecretValue"}, resources...)
}

// queuesAndStreams: sending to each queue of SendsTo, reading each stream
// source's stream, sending failed batches to its on-failure queues, and
// consuming the Queue source.
func (p *policy) queuesAndStreams() {
	for _, id := range p.spec.SendsTo {
		q, qs := p.queue(id, "sends to")
		p.statement(SendToSid(qs), QueueSendActions(), q.QueueArn())
	}
	for _, src := range p.spec.Streams {
		t, ok := p.res.Tables[src.Table]
		if !ok || t.TableStreamArn() == nil {
			panic(fmt.Sprintf("infra: %s: stream of table %q, which the stack does not have", p.spec.Name, src.Table))
		}
		p.statement(p.sids.Unique(ReadStreamSid(src.Table)), StreamReadActions(), t.TableStreamArn())
	}
	for _, id := range OnFailureQueues(p.spec) {
		q, qs := p.queue(id, "on-failure")
		p.statement(p.sids.Unique(OnFailureSid(qs)), QueueSendActions(), q.QueueArn())
	}
	if src := p.spec.Queue; src != nil {
		q, qs := p.queue(src.Queue, "consumes")
		p.statement(ConsumeSid(qs), QueueConsumeActions(), q.QueueArn())
	}
}

// Environment is a function's environment: each table it uses → the
// table's name, each bucket → the bucket's name, each setting → its value (or Default, until
// Functions.DefaultToStageURL gives a setting that defaults to the stage's
// URL that URL), each secret's
// variable → the secret's ARN, each queue it sends to → the queue's URL,
// and LOG_LEVEL. Its keys are spec.EnvVarNames() but the decision state
// machine's ARN, which NewDecisionWorkflow adds to the functions that
// drive the workflow once the state machine exists.
func Environment(spec deploy.Function, res Resources, settings map[string]string) *map[string]*string {
	tables, secrets, queues := res.Tables, res.Secrets, res.Queues
	env := map[string]*string{deploy.LogLevelVar: jsii.String(LogLevel)}
	for _, g := range spec.Grants {
		t, ok := tables[g.Table]
		if !ok {
			panic(fmt.Sprintf("infra: %s: no table %q", spec.Name, g.Table))
		}
		env[envVarOfTable(g.Table)] = t.TableName()
	}
	for _, id := range spec.BucketIDs() {
		b, ok := res.Buckets[id]
		if !ok {
			panic(fmt.Sprintf("infra: %s: no bucket %q", spec.Name, id))
		}
		env[deploy.MustBucket(id).EnvVar] = b.BucketName()
	}
	for _, s := range spec.Settings {
		v := s.Default
		if x, ok := settings[s.Parameter]; ok && x != "" {
			v = x
		}
		env[s.EnvVar] = jsii.String(v)
	}
	for _, s := range spec.Secrets {
		secret, ok := secrets[s.SecretID]
		if !ok {
			panic(fmt.Sprintf("infra: %s: no secret %q", spec.Name, s.SecretID))
		}
		env[s.EnvVar] = secret.SecretArn()
	}
	for _, id := range spec.SendsTo {
		q, ok := queues[id]
		qs, known := deploy.LookupQueue(id)
		if !ok || !known || qs.EnvVar == "" {
			panic(fmt.Sprintf("infra: %s: no queue %q (or no variable for its URL)", spec.Name, id))
		}
		env[qs.EnvVar] = q.QueueUrl()
	}
	return &env
}

// OnFailureQueues are the on-failure queues of a function's stream
// sources, each once, in the order of its streams: streams may share one.
func OnFailureQueues(spec deploy.Function) []string {
	var out []string
	for _, src := range spec.Streams {
		if src.OnFailure != "" && !slices.Contains(out, src.OnFailure) {
			out = append(out, src.OnFailure)
		}
	}
	return out
}

// s3ViaService is kms:ViaService for S3 in the stack's region.
func s3ViaService() *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("s3."), awscdk.Aws_REGION(), jsii.String(".amazonaws.com")})
}

func envVarOfTable(id string) string {
	t, ok := schema.Lookup(id)
	if !ok || t.EnvVar == "" {
		panic("infra: no environment variable for table " + id)
	}
	return t.EnvVar
}

// DefaultAssetRoot is build/ at the repository root (RepoRoot).
func DefaultAssetRoot() string {
	root, err := RepoRoot()
	if err != nil {
		panic(err.Error() + "; set AssetRoot")
	}
	return filepath.Join(root, "build")
}

// RepoRoot is the repository root: the nearest folder, from the working
// directory up, whose go.mod declares ModulePath (`cdk synth` runs the app
// in infra/, go test in infra/stack).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("infra: %w", err)
	}
	for {
		if modulePath(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("infra: no go.mod of module %s above the working directory", ModulePath)
		}
		dir = parent
	}
}

func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// CheckAssets reports every function of deploy.Functions() whose
// <root>/<name>/bootstrap is missing, telling to run make build.
func CheckAssets(root string) error {
	var missing []string
	for _, f := range deploy.Functions() {
		p := filepath.Join(root, f.Name, deploy.Handler)
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return fmt.Errorf("infra: Lambda artifacts missing, run `make build` first (it writes build/<function>/bootstrap): %s", strings.Join(missing, ", "))
}
