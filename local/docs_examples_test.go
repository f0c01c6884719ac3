package main

// The documents' examples, run as a reader runs them: every Markdown file
// the project ships, its "sh" blocks in the order shown, in one shell per
// document, against the whole system as make local runs it (up, with its
// demo data), on the test's own tables, ports and folders. An example that
// fails, or prints other than its "text output" block says, fails the
// test, naming the document and line (local/mdexamples says how examples
// are marked).
//
// What the runner changes of the text, and why: `go run ./local` runs the
// command built once beforehand (the same package; building it for every
// example would take minutes), and `.local/demo.env` is this system's own
// (the reader's make local writes theirs there). Each document's shell
// starts with the demo's names (`. .local/demo.env`: EVS_API, EVS_KEY, …)
// already read, as a reader following the front page has them.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/mdexamples"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/schema"
)

func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole local system")
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs := shippedDocs(t, root)
	parsed := map[string][]mdexamples.Example{}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if parsed[d], err = mdexamples.Parse(string(b)); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	sys := startDocsSystem(t, root)
	for _, d := range docs {
		t.Run(d, func(t *testing.T) { sys.run(t, d, parsed[d]) })
	}
}

// shippedDocs are the Markdown files git tracks (test data aside), the
// front page first: the others assume a reader who followed it.
func shippedDocs(t *testing.T, root string) []string {
	t.Helper()
	// Tracked and new alike (a document being written is checked before
	// its first commit); ignored files are none of the project's.
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.md").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var docs []string
	for _, d := range strings.Fields(string(out)) {
		if !strings.Contains(d, "testdata/") && !strings.Contains(d, "node_modules/") {
			docs = append(docs, d)
		}
	}
	slices.SortStableFunc(docs, func(a, b string) int {
		switch {
		case a == "README.md":
			return -1
		case b == "README.md":
			return 1
		}
		return strings.Compare(a, b)
	})
	return docs
}

// docsSystem is `go run ./local up` as make local runs it, built once, on
// the test's own tables, ports and folders.
type docsSystem struct {
	root, bin, demoDir string
	env                []string
}

func startDocsSystem(t *testing.T, root string) *docsSystem {
	t.Helper()
	devstacktest.Stack(t)
	dir := t.TempDir()
	s := &docsSystem{root: root, bin: buildCLI(t, root), demoDir: filepath.Join(dir, "demo")}
	port := strconv.Itoa(freePort(t))
	prefix := "evs-docs-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-"
	s.env = append(devstack.EnvWithout(os.Environ(), append(devstack.PersonalVars(), "PORT", "SIM_PORT", "EVS_TABLE_PREFIX", "LOG_LEVEL")...),
		"DYNAMODB_ENDPOINT="+devstack.DynamoDBEndpoint(), "SQS_ENDPOINT="+devstack.SQSEndpoint(),
		"EVS_TABLE_PREFIX="+prefix, "PORT="+port, "SIM_PORT="+strconv.Itoa(freePort(t)),
		"EVS_RECEIVER_PORT="+strconv.Itoa(freePort(t)), "LOG_LEVEL=warn",
		"EVS_DEMO_DIR="+s.demoDir, "EVS_RECORDS_DIR="+filepath.Join(dir, "records"), "EVS_EVIDENCE_DIR="+filepath.Join(dir, "evidence"),
		"EVS_CLI="+s.bin)
	t.Cleanup(func() {
		// Its tables go with it, once it has stopped (its queues live as
		// long as ElasticMQ).
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := devstack.DropTables(ctx, devstack.DB().Client(), schema.NamesWithPrefix(prefix)); err != nil {
			t.Logf("drop the docs system's tables: %v", err)
		}
	})
	t.Cleanup(startUp(t, s.bin, root, dir, s.demoDir, port, s.env))
	return s
}

// run runs a document's examples in one shell, each block's output kept
// apart, then holds the outputs to what the document says.
func (s *docsSystem) run(t *testing.T, doc string, examples []mdexamples.Example) {
	out := t.TempDir()
	var script strings.Builder
	script.WriteString("set -eEuo pipefail\n")
	fmt.Fprintf(&script, ". %q\n", filepath.Join(s.demoDir, "demo.env"))
	// The trap speaks on the script's own stderr (3): each block's is its file.
	script.WriteString("exec 3>&2\n")
	script.WriteString(`trap 'echo "the example at line $evs_line failed at: $BASH_COMMAND" >&3' ERR` + "\n")
	ran := 0
	for i, ex := range examples {
		if ex.NoRun != "" {
			continue
		}
		ran++
		fmt.Fprintf(&script, "evs_line=%d\n{\n%s\n} >%q 2>%q\n", ex.Line, s.reader(ex.Code),
			filepath.Join(out, fmt.Sprintf("%d.out", i)), filepath.Join(out, fmt.Sprintf("%d.err", i)))
	}
	if ran == 0 {
		t.Skipf("%s shows no example to run", doc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", script.String())
	sh.Dir, sh.Env = s.root, s.env
	// Its own process group: what an example leaves running (a receiver
	// started with &) ends with it.
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sh.Cancel = func() error { return syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	// Into a file, not a pipe: what an example leaves running holds the
	// script's descriptors, and a pipe would wait for it.
	logFile, err := os.Create(filepath.Join(out, "script.log"))
	if err != nil {
		t.Fatal(err)
	}
	sh.Stdout, sh.Stderr = logFile, logFile
	err = sh.Run()
	logFile.Close()
	if sh.Process != nil {
		syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
	}
	combined, _ := os.ReadFile(logFile.Name())
	for i, ex := range examples {
		got, rerr := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.out", i)))
		if errors.Is(rerr, fs.ErrNotExist) {
			if err == nil && ex.NoRun == "" {
				// The script ended well and this example never ran: an
				// exit (or exec) before it.
				t.Errorf("%s:%d never ran: an example before it ended the document's shell", doc, ex.Line)
			}
			continue // not run, or not reached
		}
		if !ex.HasOutput {
			continue
		}
		if ok, missing := mdexamples.Match(ex.Output, string(got)); !ok {
			t.Errorf("%s:%d prints other than the document says; first line not found: %q\nit printed:\n%s", doc, ex.Line, missing, got)
		}
	}
	if err != nil {
		line := lastLine(string(combined))
		stderr := ""
		for i, ex := range examples {
			if strings.Contains(line, fmt.Sprintf("line %d failed", ex.Line)) {
				b, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.err", i)))
				o, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.out", i)))
				stderr = fmt.Sprintf("\nits output:\n%s\nits errors:\n%s", o, b)
			}
		}
		// What the examples before it said on stderr (a receiver that
		// could not listen, say) may be why.
		for i := range examples {
			if b, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.err", i))); len(b) > 0 && !strings.Contains(stderr, string(b)) {
				stderr += fmt.Sprintf("\nthe example at line %d said on stderr:\n%s", examples[i].Line, b)
			}
		}
		t.Errorf("%s: %v: %s%s", doc, err, line, stderr)
	}
}

// reader is an example's code as the runner runs it (see the top).
func (s *docsSystem) reader(code string) string {
	code = strings.ReplaceAll(code, "go run ./local", `"$EVS_CLI"`)
	return strings.ReplaceAll(code, ".local/demo.env", filepath.Join(s.demoDir, "demo.env"))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
