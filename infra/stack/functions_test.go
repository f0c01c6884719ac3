package stack_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// Every function of shared/deploy, exactly as described there, and no
// other (no helper functions CDK might add, such as log-retention ones).
func TestFunctions(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		fns := resources(s.JSON, "AWS::Lambda::Function")
		var want []string
		for _, f := range deploy.Functions() {
			want = append(want, f.LogicalID)
		}
		if !equal(keys(fns), want) {
			t.Errorf("functions: %s", diff(keys(fns), want))
		}
		for _, f := range deploy.Functions() {
			t.Run(f.Name, func(t *testing.T) {
				p := props(resource(t, s.JSON, f.LogicalID, "AWS::Lambda::Function"))
				if p["Runtime"] != deploy.Runtime || p["Handler"] != deploy.Handler {
					t.Errorf("Runtime %v, Handler %v", p["Runtime"], p["Handler"])
				}
				if got := strs(p["Architectures"]); len(got) != 1 || got[0] != deploy.Architecture {
					t.Errorf("Architectures = %v, want [%s]", got, deploy.Architecture)
				}
				if p["MemorySize"] != float64(f.MemoryMB) || p["Timeout"] != float64(f.TimeoutSeconds) {
					t.Errorf("MemorySize %v, Timeout %v, want %d, %d", p["MemorySize"], p["Timeout"], f.MemoryMB, f.TimeoutSeconds)
				}
				if tc, _ := p["TracingConfig"].(obj); tc == nil || tc["Mode"] != "Active" {
					t.Errorf("TracingConfig = %v", p["TracingConfig"])
				}
				if p["Description"] != f.Description {
					t.Errorf("Description = %v", p["Description"])
				}
				if code, _ := p["Code"].(obj); code == nil || code["S3Key"] == nil {
					t.Errorf("Code = %v, want an asset", p["Code"])
				}
				if got := ref(p["Role"]); got != "arn:"+f.LogicalID+"Role" {
					t.Errorf("Role = %s", got)
				}

				// The environment: exactly deploy's variable names, with the
				// tables' names, the settings, the secrets' ARNs.
				env := map[string]any{}
				if e, ok := p["Environment"].(obj); ok {
					env = e["Variables"].(obj)
				}
				if !equal(keys(env), f.EnvVarNames()) {
					t.Errorf("environment: %s", diff(keys(env), f.EnvVarNames()))
				}
				if env[deploy.LogLevelVar] != "info" {
					t.Errorf("LOG_LEVEL = %v", env[deploy.LogLevelVar])
				}
				for _, id := range f.TableIDs() {
					tb, _ := schema.Lookup(id)
					if got := ref(env[tb.EnvVar]); got != "ref:"+deploy.TableLogicalID(id) {
						t.Errorf("%s = %s, want the name of %s", tb.EnvVar, got, deploy.TableLogicalID(id))
					}
				}
				for _, set := range f.Settings {
					want := set.Default
					if v, ok := s.Props.Settings[set.Parameter]; ok {
						want = v
					}
					if env[set.EnvVar] != want {
						t.Errorf("%s = %v, want %q", set.EnvVar, env[set.EnvVar], want)
					}
				}
				for _, sec := range f.Secrets {
					if got := ref(env[sec.EnvVar]); got != "ref:"+deploy.SecretLogicalID(sec.SecretID) {
						t.Errorf("%s = %s, want the ARN of %s", sec.EnvVar, got, deploy.SecretLogicalID(sec.SecretID))
					}
				}
				for _, id := range f.SendsTo {
					q, _ := deploy.LookupQueue(id)
					if got := ref(env[q.EnvVar]); got != "ref:"+q.LogicalID {
						t.Errorf("%s = %s, want the URL of %s", q.EnvVar, got, q.LogicalID)
					}
				}

				// Its own log group, kept a month.
				lg, _ := p["LoggingConfig"].(obj)
				if lg == nil || ref(lg["LogGroup"]) != "ref:"+f.LogicalID+"LogGroup" {
					t.Fatalf("LoggingConfig = %v", p["LoggingConfig"])
				}
				if days := props(resource(t, s.JSON, f.LogicalID+"LogGroup", "AWS::Logs::LogGroup"))["RetentionInDays"]; days != float64(30) {
					t.Errorf("log retention = %v days, want 30", days)
				}
			})
		}
	})
}

// A setting from the CDK context reaches the functions (the prod stack sets
// YenteThreshold); the others keep their defaults. Checked in TestFunctions;
// this makes sure the fixture does override one.
func TestSettingsOverride(t *testing.T) {
	if prod(t).Props.Settings["YenteThreshold"] == "" {
		t.Fatal("the prod fixture overrides no setting")
	}
	p := props(resource(t, prod(t).JSON, "CreateEntityFunction", "AWS::Lambda::Function"))
	if got := p["Environment"].(obj)["Variables"].(obj)["YENTE_THRESHOLD"]; got != "0.8" {
		t.Errorf("YENTE_THRESHOLD = %v, want the context's 0.8", got)
	}
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
// pairs: its grants, its secrets, sending to the queues of SendsTo, reading
// its stream (the stream's ARN) and sending to its on-failure queue, or
// consuming its queue. TestPipelinePermissions spells out the last three
// for the functions that have them.
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
	for _, s := range f.Secrets {
		out = append(out, "secretsmanager:GetSecretValue ref:"+deploy.SecretLogicalID(s.SecretID))
	}
	queueArn := func(id string) string { q, _ := deploy.LookupQueue(id); return "arn:" + q.LogicalID }
	for _, id := range f.SendsTo {
		out = append(out, "sqs:SendMessage "+queueArn(id))
	}
	if src := f.Stream; src != nil {
		for _, a := range []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"} {
			out = append(out, a+" getatt:"+deploy.TableLogicalID(src.Table)+".StreamArn")
		}
		if src.OnFailure != "" {
			out = append(out, "sqs:SendMessage "+queueArn(src.OnFailure))
		}
	}
	if src := f.Queue; src != nil {
		for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"} {
			out = append(out, a+" "+queueArn(src.Queue))
		}
	}
	return append(out, allowedExtras(f)...)
}

// Each function's role gets exactly its catalogue's permissions plus
// allowedExtras: every AWS::IAM::Policy attached to the role, flattened to
// action × resource pairs; no managed policy, no inline policy on the role,
// no Deny, NotAction, NotResource or Condition to reason about; trusted by
// Lambda alone; used by that function alone.
func TestLeastPrivilege(t *testing.T) {
	tmpl := dev(t).JSON
	managed := resources(tmpl, "AWS::IAM::ManagedPolicy")
	roleUsers := map[string][]string{}
	for id, fn := range resources(tmpl, "AWS::Lambda::Function") {
		role := ref(props(fn)["Role"])
		roleUsers[role] = append(roleUsers[role], id)
	}
	for _, f := range deploy.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			roleID := f.LogicalID + "Role"
			role := props(resource(t, tmpl, roleID, "AWS::IAM::Role"))
			if role["ManagedPolicyArns"] != nil || role["Policies"] != nil || role["PermissionsBoundary"] != nil {
				t.Errorf("role has ManagedPolicyArns %v, Policies %v", role["ManagedPolicyArns"], role["Policies"])
			}
			trust := role["AssumeRolePolicyDocument"].(obj)["Statement"].([]any)
			if len(trust) != 1 || ref(trust[0].(obj)["Principal"]) != `{"Service":"lambda.amazonaws.com"}` || trust[0].(obj)["Action"] != "sts:AssumeRole" {
				t.Errorf("trust policy = %v", trust)
			}
			if users := roleUsers["arn:"+roleID]; len(users) != 1 || users[0] != f.LogicalID {
				t.Errorf("role used by %v", users)
			}
			for id, m := range managed {
				for _, r := range strs(props(m)["Roles"]) {
					if r == "ref:"+roleID {
						t.Errorf("managed policy %s is attached to the role", id)
					}
				}
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
