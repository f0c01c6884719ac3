package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack"
)

// demoEntity is the demo's first entity (seed.Demo), whose trail the
// records store copies.
const demoEntity = 1000000001

// `go run ./local up` with DynamoDB Local in memory, as a person runs it
// with no make local folders: twice in a row, then again once the stack
// was started afresh (its tables gone, the demo seeded anew under the
// same ids). The records the streams lock follow the tables: under the
// stack's memory folder, wiped when the stack starts an in-memory server,
// so audit --verify finds the demo's entity intact each time; and the
// working tree gains nothing (once they went to ./records, outlived the
// tables, and made the next demo "differ from its locked copy").
func TestUpInMemoryTwiceThenVerify(t *testing.T) {
	stack := startPrivateStack(t) // no DYNAMODB_DATA_DIR: in memory
	untracked := untrackedFiles(t, stack.root)
	sys := &memorySystem{t: t, stack: stack, bin: buildCLI(t, stack.root), demoDir: t.TempDir()}
	lockedDir := filepath.Join(stack.dir, "memory", "records")

	for _, step := range []struct {
		name    string
		restart bool // the stack started afresh first: its tables gone
	}{
		{"first up", false},
		{"up again, the same tables", false},
		{"up after the stack started afresh", true},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.restart {
				for _, cmd := range []string{"stop", "start"} {
					if out, err := stack.script(cmd); err != nil {
						t.Fatalf("stack.sh %s: %v: %s", cmd, err, out)
					}
				}
			}
			stop := sys.up(t)
			defer stop()
			out := sys.verifiedWhenLocked(t)
			if !strings.Contains(out, "0 not yet locked") {
				t.Errorf("audit --verify:\n%s\nwant every record locked and agreeing", out)
			}
			acct, err := os.ReadDir(filepath.Join(lockedDir, "audit"))
			if err != nil || len(acct) == 0 {
				t.Errorf("no records under the stack's memory folder %s (%v): the records went elsewhere", lockedDir, err)
			}
		})
	}
	if got := untrackedFiles(t, stack.root); got != untracked {
		t.Errorf("the working tree's untracked files were:\n%s\nand are now:\n%s", untracked, got)
	}
}

// memorySystem runs the local commands as a person would, built once,
// against a private stack in memory: only the stack's ports and state
// folder given, none of the records, evidence or data folders.
type memorySystem struct {
	t       *testing.T
	stack   *ownStack
	bin     string
	demoDir string
}

func (s *memorySystem) env() []string {
	return append(devstack.EnvWithout(os.Environ(), append(devstack.PersonalVars(), "PORT", "SIM_PORT", "EVS_TABLE_PREFIX", "LOG_LEVEL", "EVS_STACK_DIR")...),
		"EVS_STACK_DIR="+s.stack.dir, "DYNAMODB_PORT="+strconv.Itoa(s.stack.dynamoPort), "ELASTICMQ_PORT="+strconv.Itoa(s.stack.queuePort),
		"EVS_DEMO_DIR="+s.demoDir, "LOG_LEVEL=warn")
}

// up starts `up` with a small demo and returns once it serves; stop ends it.
func (s *memorySystem) up(t *testing.T) (stop func()) {
	t.Helper()
	port := strconv.Itoa(freePort(t))
	env := append(s.env(), "PORT="+port, "SIM_PORT="+strconv.Itoa(freePort(t)), "EVS_RECEIVER_PORT="+strconv.Itoa(freePort(t)))
	return startUp(t, s.bin, s.stack.root, t.TempDir(), s.demoDir, port, env, "--entities", "3")
}

// verifiedWhenLocked runs audit --verify on the demo's entity until the
// streams have locked its whole chain, failing on the first answer that
// is not intact: a locked copy that differs is no matter of waiting.
func (s *memorySystem) verifiedWhenLocked(t *testing.T) string {
	t.Helper()
	var out string
	deadline := time.Now().Add(30 * time.Second)
	for {
		cmd := exec.Command(s.bin, "audit", "--verify", "--entity", strconv.Itoa(demoEntity))
		cmd.Dir, cmd.Env = s.stack.root, s.env()
		b, err := cmd.CombinedOutput()
		out = string(b)
		var exit *exec.ExitError
		if errors.As(err, &exit) || strings.Contains(out, `"kind":`) {
			t.Fatalf("audit --verify on entity %d: %v\n%s", demoEntity, err, out)
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, " 0 not yet locked") || time.Now().After(deadline) {
			return out
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// untrackedFiles is git's list of the working tree's untracked files
// (ignored ones, such as .local, left out).
func untrackedFiles(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "??") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
