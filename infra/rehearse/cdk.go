package rehearse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Account is the account moto answers for (its default, 123456789012):
// the bootstrap names it, as `cdk bootstrap aws://<account>/<region>`.
const Account = "123456789012"

// cdk runs the pinned CDK CLI (local/cdk/run.sh) against moto.
type cdk struct {
	root    string
	env     []string
	logPath string
}

// newCDK is the CLI with moto's endpoint and fake credentials in its
// environment, and nothing of the caller's AWS configuration.
func newCDK(root, endpoint, region, logPath string) *cdk {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "CDK_") {
			env = append(env, kv)
		}
	}
	env = append(env, "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=rehearsal", "AWS_SECRET_ACCESS_KEY=rehearsal",
		"AWS_REGION="+region, "AWS_DEFAULT_REGION="+region, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"AWS_EC2_METADATA_DISABLED=true", "NODE_NO_WARNINGS=1")
	return &cdk{root: root, env: env, logPath: logPath}
}

// run runs `cdk args…` in dir, its output appended to the log; an error
// carries the output's last lines.
func (c *cdk) run(ctx context.Context, dir string, args ...string) error {
	args = append(args, "--no-notices", "--no-version-reporting")
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(c.root, "local", "cdk", "run.sh")}, args...)...)
	cmd.Dir, cmd.Env = dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if f, ferr := os.OpenFile(c.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); ferr == nil {
		fmt.Fprintf(f, "\n$ cdk %s\n%s", strings.Join(args, " "), out.Bytes())
		f.Close()
	}
	if err != nil {
		return fmt.Errorf("cdk %s: %w:\n%s", args[0], err, tail(out.String(), 15))
	}
	return nil
}

// synth synthesizes the app in infra/ (its cdk.json) into out, with the
// context given as key=value.
func (c *cdk) synth(ctx context.Context, out string, context map[string]string) error {
	args := []string{"synth", "--quiet", "--no-lookups", "--output", out}
	keys := make([]string, 0, len(context))
	for k := range context {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+context[k])
	}
	return c.run(ctx, filepath.Join(c.root, "infra"), args...)
}

// bootstrap bootstraps the account in region, from dir (no app there).
func (c *cdk) bootstrap(ctx context.Context, dir, region string) error {
	return c.run(ctx, dir, "bootstrap", "aws://"+Account+"/"+region)
}

// deploy deploys every stack of the cloud assembly in assembly.
func (c *cdk) deploy(ctx context.Context, dir, assembly string) error {
	return c.run(ctx, dir, "deploy", "--all", "--app", assembly, "--require-approval", "never", "--progress", "events")
}

// stackArtifact is one stack of a cloud assembly.
type stackArtifact struct {
	Name, Region string
	// Template is the path of its template.
	Template string
}

// stacksOf reads the stacks of the cloud assembly in dir (manifest.json):
// an environment-agnostic stack goes to defaultRegion.
func stacksOf(dir, defaultRegion string) ([]stackArtifact, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("cloud assembly: %w", err)
	}
	var manifest struct {
		Artifacts map[string]struct {
			Type        string `json:"type"`
			Environment string `json:"environment"`
			Properties  struct {
				TemplateFile string `json:"templateFile"`
				StackName    string `json:"stackName"`
			} `json:"properties"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return nil, fmt.Errorf("cloud assembly manifest: %w", err)
	}
	var out []stackArtifact
	for id, a := range manifest.Artifacts {
		if a.Type != "aws:cloudformation:stack" {
			continue
		}
		name := a.Properties.StackName
		if name == "" {
			name = id
		}
		region := defaultRegion
		if env := strings.TrimPrefix(a.Environment, "aws://"); env != a.Environment {
			if _, r, ok := strings.Cut(env, "/"); ok && r != "unknown-region" {
				region = r
			}
		}
		out = append(out, stackArtifact{Name: name, Region: region, Template: filepath.Join(dir, a.Properties.TemplateFile)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cloud assembly %s: no stack", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// regionsOf are the stacks' regions, each once, sorted.
func regionsOf(stacks []stackArtifact) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range stacks {
		if !seen[s.Region] {
			seen[s.Region] = true
			out = append(out, s.Region)
		}
	}
	sort.Strings(out)
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
