package stacktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack"
)

// CheckovSkipsFile holds the checkov checks the templates are allowed to
// fail, each with the resources and the reason (relative to the
// repository's root).
const CheckovSkipsFile = "infra/checkov.yaml"

// CheckovSkip is one check the templates may fail on some resources.
type CheckovSkip struct {
	Check string `yaml:"check"`
	// Resources are logical ids, or patterns of them (path.Match: "*Function").
	Resources []string `yaml:"resources"`
	Reason    string   `yaml:"reason"`
}

// CheckovSkips reads CheckovSkipsFile.
func CheckovSkips() ([]CheckovSkip, error) {
	root, err := stack.RepoRoot()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, CheckovSkipsFile))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Skips []CheckovSkip `yaml:"skips"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", CheckovSkipsFile, err)
	}
	return doc.Skips, nil
}

// Covers tells whether the skip allows check on the resource of this
// logical id.
func (s CheckovSkip) Covers(check, logicalID string) bool {
	if s.Check != check {
		return false
	}
	for _, p := range s.Resources {
		if ok, _ := path.Match(p, logicalID); ok {
			return true
		}
	}
	return false
}

// CheckovFailure is one failed check of one resource.
type CheckovFailure struct {
	Check, Name, File string
	// Resource is the logical id.
	Resource string
}

// ErrNoCheckov is returned when checkov is not installed.
var ErrNoCheckov = errors.New("checkov is not installed: run make checkov-install (make test does)")

// CheckovBinary is checkov as local/checkov/install.sh installs it:
// CHECKOV_DIR, else ~/.cache/evs/checkov-<the version it pins>.
func CheckovBinary() (string, error) {
	dir := os.Getenv("CHECKOV_DIR")
	if dir == "" {
		root, err := stack.RepoRoot()
		if err != nil {
			return "", err
		}
		script, err := os.ReadFile(filepath.Join(root, "local", "checkov", "install.sh"))
		if err != nil {
			return "", err
		}
		m := regexp.MustCompile(`(?m)^version=(\S+)$`).FindSubmatch(script)
		if m == nil {
			return "", errors.New("local/checkov/install.sh pins no version=")
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache", "evs", "checkov-"+string(m[1]))
	}
	bin := filepath.Join(dir, "bin", "checkov")
	if _, err := os.Stat(bin); err != nil {
		return "", ErrNoCheckov
	}
	return bin, nil
}

// Checkov runs checkov's CloudFormation checks over the files, offline
// (no download of policies, no API key), and lists every failed check.
func Checkov(files ...string) ([]CheckovFailure, error) {
	bin, err := CheckovBinary()
	if err != nil {
		return nil, err
	}
	args := []string{"--framework", "cloudformation", "--output", "json", "--compact", "--quiet", "--skip-download"}
	for _, f := range files {
		args = append(args, "--file", f)
	}
	cmd := exec.Command(bin, args...)
	// No telemetry, no check for a newer version.
	// Its LOG_LEVEL is its own: the service's (make test sets it empty,
	// which checkov's logging refuses at start) is not passed on.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "LOG_LEVEL=") })
	cmd.Env = append(env, "LOG_LEVEL=WARNING", "BC_SKIP_MAPPING=TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2=false", "ANONYMOUS_TELEMETRY=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// checkov exits 1 when a check fails; its report says which.
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && len(bytes.TrimSpace(out)) > 0) {
		// Exit 1 with no report is checkov failing, not a check.
		return nil, fmt.Errorf("checkov: %w: %s", err, stderr.String())
	}
	return checkovFailures(out)
}

// checkovFailures reads checkov's JSON report: one object, or a list of
// one per framework.
func checkovFailures(out []byte) ([]CheckovFailure, error) {
	type report struct {
		CheckType string `json:"check_type"`
		Results   struct {
			Failed []struct {
				CheckID   string `json:"check_id"`
				CheckName string `json:"check_name"`
				Resource  string `json:"resource"`
				FilePath  string `json:"file_path"`
			} `json:"failed_checks"`
		} `json:"results"`
	}
	var reports []report
	if trimmed := bytes.TrimSpace(out); len(trimmed) > 0 && trimmed[0] == '{' {
		var one report
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return nil, fmt.Errorf("checkov's report: %w", err)
		}
		reports = []report{one}
	} else if err := json.Unmarshal(trimmed, &reports); err != nil {
		return nil, fmt.Errorf("checkov's report: %w: %.200s", err, out)
	}
	var failures []CheckovFailure
	for _, r := range reports {
		for _, f := range r.Results.Failed {
			// checkov names a resource <Type>.<LogicalId>.
			failures = append(failures, CheckovFailure{Check: f.CheckID, Name: f.CheckName, File: filepath.Base(f.FilePath),
				Resource: f.Resource[strings.LastIndex(f.Resource, ".")+1:]})
		}
	}
	return failures, nil
}
