package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// Every function of shared/deploy, exactly as described there, and no
// other (no helper functions CDK might add, such as log-retention ones).
func TestFunctions(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::Lambda::Function", len(deploy.Functions()))
		for _, f := range deploy.Functions() {
			t.Run(f.Name, func(t *testing.T) {
				env := environment(t, f, s)
				hasProps(t, s.Template, f.LogicalID, "AWS::Lambda::Function", m{
					"Runtime":       deploy.Runtime,
					"Handler":       deploy.Handler,
					"Architectures": listOf(deploy.Architecture),
					"MemorySize":    f.MemoryMB,
					"Timeout":       f.TimeoutSeconds,
					"TracingConfig": exactly(m{"Mode": "Active"}),
					"Description":   f.Description,
					"Code":          like(m{"S3Key": assertions.Match_AnyValue()}), // an asset
					"Role":          arnOf(f.LogicalID + "Role"),
					"Environment":   exactly(m{"Variables": exactly(env)}),
					"LoggingConfig": like(m{"LogGroup": refOf(f.LogicalID + "LogGroup")}),
				})
				// Its own log group, kept a month — the audit exports'
				// (periodic-reviews' past head exports, audit-export's
				// copies and manifests) ten years.
				days := 30
				if f.Name == "periodic-reviews" || f.Name == "audit-export" {
					days = 3653
				}
				hasProps(t, s.Template, f.LogicalID+"LogGroup", "AWS::Logs::LogGroup", m{"RetentionInDays": days})
			})
		}
	})
}

// environment is a function's environment as the catalogue has it, with
// the stack's settings overridden: exactly deploy's variable names, with the
// tables' names, the settings (one that defaults to the stage's URL given
// none: the stage's URL), the secrets' ARNs, the queues' URLs and, for a
// function driving the decision workflow, the state machine's ARN.
func environment(t *testing.T, f deploy.Function, s *stacktest.Synthesized) m {
	t.Helper()
	env := m{deploy.LogLevelVar: "info"}
	for _, id := range f.TableIDs() {
		tb, _ := schema.Lookup(id)
		env[tb.EnvVar] = refOf(deploy.TableLogicalID(id))
	}
	for _, id := range f.BucketIDs() {
		b := deploy.MustBucket(id)
		env[b.EnvVar] = refOf(b.LogicalID)
	}
	for _, set := range f.Settings {
		env[set.EnvVar] = set.Default
		if set.DefaultsToStageURL {
			env[set.EnvVar] = stageURL(t, s.Template)
		}
		if v, ok := s.Props.Settings[set.Parameter]; ok {
			env[set.EnvVar] = v
		}
	}
	for _, sec := range f.Secrets {
		env[sec.EnvVar] = refOf(deploy.SecretLogicalID(sec.SecretID))
	}
	for _, id := range f.SendsTo {
		q, _ := deploy.LookupQueue(id)
		env[q.EnvVar] = refOf(q.LogicalID)
	}
	if len(f.Workflow) > 0 {
		env[deploy.DecisionStateMachineVar] = refOf(stack.DecisionStateMachineID)
	}
	if !equal(keys(env), f.EnvVarNames()) {
		t.Errorf("%s: environment %s", f.Name, diff(keys(env), f.EnvVarNames()))
	}
	return env
}

// stageURL is the stage's URL without a trailing slash, as the template
// joins it: https://<api id>.execute-api.<region>.<url suffix>/<stage>.
func stageURL(t *testing.T, tmpl assertions.Template) m {
	t.Helper()
	return m{"Fn::Join": []any{"", []any{"https://", refOf(onlyID(t, tmpl, "AWS::ApiGateway::RestApi")), ".execute-api.",
		refOf("AWS::Region"), ".", refOf("AWS::URLSuffix"), "/", refOf(onlyID(t, tmpl, "AWS::ApiGateway::Stage"))}}}
}

// A setting from the CDK context reaches the functions (the prod stack sets
// YenteThreshold, and SettingsBaseUrl instead of the stage's URL); the
// others keep their defaults. Checked in TestFunctions; this makes sure
// the fixture does override them.
func TestSettingsOverride(t *testing.T) {
	if prod(t).Props.Settings["YenteThreshold"] == "" || prod(t).Props.Settings["SettingsBaseUrl"] == "" {
		t.Fatal("the prod fixture does not override YenteThreshold and SettingsBaseUrl")
	}
	hasProps(t, prod(t).Template, "CreateEntityFunction", "AWS::Lambda::Function", m{
		"Environment": like(m{"Variables": like(m{"YENTE_THRESHOLD": "0.8"})}),
	})
	hasProps(t, prod(t).Template, "AdminFunction", "AWS::Lambda::Function", m{
		"Environment": like(m{"Variables": like(m{"SETTINGS_BASE_URL": "https://kyb.example.com"})}),
	})
}

// allowedExtras are the only permissions a function's role has beyond its
// catalogue entry (DynamoDB grants and secrets):
//
//   - xray:PutTraceSegments and xray:PutTelemetryRecords on "*": CDK adds
//     them for Tracing ACTIVE; X-Ray has no resource-level permissions;
//   - logs:CreateLogStream and logs:PutLogEvents on the function's own log
//     group: the role is ours, without AWSLambdaBasicExecutionRole (which
//     allows every log group in the account), so writing its logs must be
//     granted, and only to its own group.
func allowedExtras(f deploy.Function) []string {
	return []string{
		"xray:PutTraceSegments *",
		"xray:PutTelemetryRecords *",
		"logs:CreateLogStream arn:" + f.LogicalID + "LogGroup",
		"logs:PutLogEvents arn:" + f.LogicalID + "LogGroup",
	}
}

// wantPermissions is a function's catalogue entry as "action resource"
// pairs: its grants, its bucket grants (the objects, the bucket itself for
// a listing, and the bucket key's KMS actions: TestKeyPermissions pins
// them), its secrets, sending to the queues of SendsTo, reading
// its streams (each stream's ARN) and sending to their on-failure queues
// (each once), or consuming its queue, and its workflow actions (on the state machine, or
// on its executions). TestPipelinePermissions spells out the queues and
// the stream for the functions that have them, TestOnlyTheConsoleDrivesTheWorkflow
// the workflow.
func wantPermissions(f deploy.Function) []string {
	var out []string
	for _, g := range f.Grants {
		arn := "arn:" + deploy.TableLogicalID(g.Table)
		for _, a := range g.Actions {
			out = append(out, a+" "+arn)
			if g.Indexes {
				out = append(out, a+" "+arn+"/index/*")
			}
		}
	}
	for _, g := range f.Objects {
		b := deploy.MustBucket(g.Bucket)
		for _, a := range g.ObjectActions() {
			out = append(out, a+" arn:"+b.LogicalID+"/*")
		}
		for _, a := range g.BucketActions() {
			out = append(out, a+" arn:"+b.LogicalID)
		}
		for _, a := range g.KeyActions() {
			out = append(out, a+" arn:"+stack.BucketKeyLogicalID(b))
		}
	}
	for _, s := range f.Secrets {
		out = append(out, "secretsmanager:GetSecretValue ref:"+deploy.SecretLogicalID(s.SecretID))
	}
	queueArn := func(id string) string { q, _ := deploy.LookupQueue(id); return "arn:" + q.LogicalID }
	for _, id := range f.SendsTo {
		out = append(out, "sqs:SendMessage "+queueArn(id))
	}
	failures := map[string]bool{}
	for _, src := range f.Streams {
		for _, a := range []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"} {
			out = append(out, a+" getatt:"+deploy.TableLogicalID(src.Table)+".StreamArn")
		}
		if src.OnFailure != "" && !failures[src.OnFailure] {
			failures[src.OnFailure] = true
			out = append(out, "sqs:SendMessage "+queueArn(src.OnFailure))
		}
	}
	if src := f.Queue; src != nil {
		for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"} {
			out = append(out, a+" "+queueArn(src.Queue))
		}
	}
	for _, a := range f.WorkflowActionsOn(deploy.OnStateMachine) {
		out = append(out, a+" ref:"+stack.DecisionStateMachineID)
	}
	for _, a := range f.WorkflowActionsOn(deploy.OnExecutions) {
		out = append(out, a+" "+decisionExecutions)
	}
	return append(out, allowedExtras(f)...)
}

// decisionExecutions is every execution of the decision state machine as
// ref renders the ARN: arn:<partition>:states:<region>:<account>:execution:<name>:*.
const decisionExecutions = "arn:ref:AWS::Partition:states:ref:AWS::Region:ref:AWS::AccountId:execution:getatt:" +
	stack.DecisionStateMachineID + ".Name:*"

// Each function's role gets exactly its catalogue's permissions plus
// allowedExtras: every AWS::IAM::Policy attached to the role, flattened to
// action × resource pairs; no managed policy, no inline policy on the role,
// no Deny, NotAction, NotResource or Condition to reason about; trusted by
// Lambda alone; used by that function alone.
func TestLeastPrivilege(t *testing.T) {
	tmpl := dev(t).Template
	for _, f := range deploy.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			roleID := f.LogicalID + "Role"
			trustedBy(t, tmpl, roleID, "lambda.amazonaws.com")
			if users := keys(find(t, tmpl, "AWS::Lambda::Function", m{"Role": arnOf(roleID)})); len(users) != 1 || users[0] != f.LogicalID {
				t.Errorf("role used by %v", users)
			}
			if attached := find(t, tmpl, "AWS::IAM::ManagedPolicy", m{"Roles": arrayWith(refOf(roleID))}); len(attached) != 0 {
				t.Errorf("managed policies %v are attached to the role", keys(attached))
			}

			got := rolePermissions(t, tmpl, roleID)
			if want := wantPermissions(f); !equal(got, want) {
				t.Errorf("permissions: %s", diff(got, want))
			}
			for _, p := range got {
				if strings.HasSuffix(p, " *") && !strings.HasPrefix(p, "xray:") {
					t.Errorf("%s on every resource", p)
				}
			}
		})
	}
}

// trustedBy: the role has no managed, inline or boundary policy, and only
// the service may assume it.
func trustedBy(t *testing.T, tmpl assertions.Template, roleID, service string) {
	t.Helper()
	hasProps(t, tmpl, roleID, "AWS::IAM::Role", m{
		"ManagedPolicyArns":   absent(),
		"Policies":            absent(),
		"PermissionsBoundary": absent(),
		"AssumeRolePolicyDocument": like(m{"Statement": arrayOf(like(m{
			"Principal": exactly(m{"Service": service}),
			"Action":    "sts:AssumeRole",
		}))}),
	})
}

// A synthesis without the artifacts of make build stops, saying so.
func TestMissingArtifacts(t *testing.T) {
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if !strings.Contains(msg, "make build") || !strings.Contains(msg, "bootstrap") {
			t.Errorf("panic %v, want one telling to run make build", r)
		}
	}()
	dir := t.TempDir()
	if err := stack.CheckAssets(dir); err == nil {
		t.Error("CheckAssets of an empty folder passed")
	}
	if err := stacktest.FakeAssets(dir); err != nil {
		t.Fatal(err)
	}
	if err := stack.CheckAssets(dir); err != nil {
		t.Errorf("CheckAssets of placeholders: %v", err)
	}
	stack.NewFunctions(nil, nil, &stack.FunctionsProps{AssetRoot: t.TempDir()})
	t.Error("NewFunctions without artifacts did not stop")
}
