// Package stacktest synthesizes the service stack once per test binary, with
// empty placeholder artifacts instead of a real `make build`, and hands the
// result to tests: the CDK assertions.Template, or the CloudFormation
// template as plain JSON (map[string]any), e.g. for infra/sam's comparison
// with the generated template.yaml:
//
//	tmpl := stacktest.Template(t)              // map[string]any, stage "dev", default settings
//	res := tmpl["Resources"].(map[string]any)
//
// Two stacks are synthesized together, in one app and one synthesis (jsii is
// slow), with the context of infra/cdk.json (the feature flags) as
// `cdk synth` has it: Dev (stage "dev", ephemeral) and Prod (stage
// "production", ProdProps).
package stacktest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Synthesized is one synthesized stack.
type Synthesized struct {
	Stack    *stack.ServiceStack
	Props    *stack.ServiceStackProps
	Template assertions.Template
	// JSON is the CloudFormation template, decoded into plain Go values.
	JSON map[string]any
	// Messages are the errors and warnings CDK attached to the stack's
	// constructs ("<level> <path>: <message>").
	Messages []string
	// Replica is the records bucket's replica stack, when the props name
	// its region (Prod's do).
	Replica *Stack
}

// Stack is a synthesized stack other than the service's.
type Stack struct {
	Template assertions.Template
	JSON     map[string]any
	Messages []string
}

// Synthesis is the result of the one synthesis.
type Synthesis struct {
	Dev, Prod *Synthesized
}

// DevProps are the props of the Dev stack: every default but one, a
// throw-away stage (context retain=false), destroyed with its stack.
func DevProps(assets string) *stack.ServiceStackProps {
	return &stack.ServiceStackProps{Stage: stack.DefaultStage, AssetRoot: assets, Ephemeral: true}
}

// ProdProps are the props of the Prod stack: stage production (retained,
// as every stage not marked ephemeral, whatever its name), an alarm e-mail,
// two settings (one of them SettingsBaseUrl, a custom domain instead of the
// stage's URL), the throttling and the break-glass role overridden.
func ProdProps(assets string) *stack.ServiceStackProps {
	return &stack.ServiceStackProps{
		Stage:          stack.ProdStage,
		AssetRoot:      assets,
		AlarmEmail:     "alarms@example.com",
		Settings:       map[string]string{"YenteThreshold": "0.8", "SettingsBaseUrl": "https://kyb.example.com"},
		ThrottleRate:   25,
		ThrottleBurst:  50,
		BreakGlassRole: ProdBreakGlassRole,

		RecordsReplicaRegion: ProdReplicaRegion,
	}
}

// ProdReplicaRegion is where the Prod stack's records are replicated.
const ProdReplicaRegion = "eu-central-1"

// ProdBreakGlassRole is the Prod stack's break-glass role.
const ProdBreakGlassRole = "prod-records-break-glass"

const annotationsInValidationReport = "@aws-cdk/core:annotationsInValidationReport"

var (
	once   sync.Once
	result *Synthesis
	failed error
)

// Synth returns the one synthesis of this test binary, failing t if it
// failed.
func Synth(t testing.TB) *Synthesis {
	t.Helper()
	once.Do(func() { result, failed = synth() })
	if failed != nil {
		t.Fatalf("synthesizing the stack: %v", failed)
	}
	return result
}

// Template is the Dev stack's CloudFormation template as plain JSON.
func Template(t testing.TB) map[string]any {
	t.Helper()
	return Synth(t).Dev.JSON
}

// Assertions is the Dev stack's assertions.Template.
func Assertions(t testing.TB) assertions.Template {
	t.Helper()
	return Synth(t).Dev.Template
}

// FakeAssets writes an empty <dir>/<name>/bootstrap for every function of
// deploy.Functions(), enough for a synthesis.
func FakeAssets(dir string) error {
	for _, f := range deploy.Functions() {
		d := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, deploy.Handler), nil, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// CDKContext is the "context" of infra/cdk.json (the feature flags), which
// `cdk synth` gives the app: the tests synthesize what the CLI does.
func CDKContext() (map[string]any, error) {
	root, err := stack.RepoRoot()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, "infra", "cdk.json"))
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("infra/cdk.json: %w", err)
	}
	return cfg.Context, nil
}

func synth() (out *Synthesis, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	tmp, err := os.MkdirTemp("", "evs-stacktest-")
	if err != nil {
		return nil, err
	}
	// Everything synth writes is read back before this returns.
	defer os.RemoveAll(tmp)
	assets := filepath.Join(tmp, "build")
	if err := FakeAssets(assets); err != nil {
		return nil, err
	}
	context, err := CDKContext()
	if err != nil {
		return nil, err
	}
	// With this flag (infra/cdk.json sets it) an error annotation fails the
	// synthesis; here the tests read the annotations themselves
	// (Synthesized.Messages), so that an error of a rule pack fails one test
	// naming it instead of every test of the binary.
	context[annotationsInValidationReport] = false
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(filepath.Join(tmp, "cdk.out")), Context: &context})
	one := func(props *stack.ServiceStackProps) *Synthesized {
		return &Synthesized{Props: props, Stack: stack.NewServiceStack(app, jsii.String(stack.StackName(props.Stage)), props)}
	}
	out = &Synthesis{Dev: one(DevProps(assets)), Prod: one(ProdProps(assets))}
	for _, pack := range stack.NagPacks() {
		awscdk.Aspects_Of(out.Prod.Stack.Stack).Add(pack, nil)
		awscdk.Aspects_Of(out.Prod.Stack.Replica.Stack).Add(pack, nil)
	}
	for _, s := range []*Synthesized{out.Dev, out.Prod} {
		t, err := template(s.Stack.Stack)
		if err != nil {
			return nil, err
		}
		s.Template, s.JSON, s.Messages = t.Template, t.JSON, t.Messages
		if s.Stack.Replica != nil {
			if s.Replica, err = template(s.Stack.Replica.Stack); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// template is a stack's template, as assertions and as JSON, and its
// messages.
func template(st awscdk.Stack) (*Stack, error) {
	t := &Stack{Template: assertions.Template_FromStack(st, nil)}
	raw, err := json.Marshal(t.Template.ToJSON())
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &t.JSON); err != nil {
		return nil, err
	}
	if t.Messages, err = messages(st); err != nil {
		return nil, err
	}
	return t, nil
}

// messages are the stack's errors and warnings. Annotations returns them
// as cxapi.SynthesisMessage, whose fields are deprecated (the type moved
// to @aws-cdk/cloud-assembly-api, which has no Go binding): they are read
// as the plain JSON they are.
func messages(st awscdk.Stack) ([]string, error) {
	a := assertions.Annotations_FromStack(st)
	found := append(*a.FindError(jsii.String("*"), assertions.Match_AnyValue()), *a.FindWarning(jsii.String("*"), assertions.Match_AnyValue())...)
	raw, err := json.Marshal(found)
	if err != nil {
		return nil, err
	}
	var plain []struct {
		Level string `json:"level"`
		ID    string `json:"id"`
		Entry struct {
			Data any `json:"data"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(raw, &plain); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range plain {
		out = append(out, fmt.Sprintf("%s %s: %v", m.Level, m.ID, m.Entry.Data))
	}
	return out, nil
}
