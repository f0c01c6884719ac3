package main

// A local stack of a test's own, for fault tests: DynamoDB Local and
// ElasticMQ started by local/stack/stack.sh on free ports, in a state
// directory of their own, so that freezing or killing them touches nothing
// another test uses. Processes are found by the pid files the script wrote,
// and are always resumed and stopped when the test ends.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

type ownStack struct {
	t                     *testing.T
	root, dir             string
	dynamoPort, queuePort int
	env                   []string // more of stack.sh's environment (data directories)
}

func startOwnStack(t *testing.T) *ownStack {
	t.Helper()
	if testing.Short() {
		t.Skip("fault tests start servers of their own")
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := &ownStack{t: t, root: root, dir: filepath.Join(root, ".local", "fault-stack"), dynamoPort: freePort(t), queuePort: freePort(t)}
	s.start()
	return s
}

// startPrivateStack is startOwnStack in a state directory of the test's own
// (pid files, logs, config), with stack.sh's environment extended by env
// (e.g. DYNAMODB_DATA_DIR): for tests that kill servers and have them
// started again. The jars are those of .local/fault-stack, linked.
func startPrivateStack(t *testing.T, env ...string) *ownStack {
	t.Helper()
	if testing.Short() {
		t.Skip("fault tests start servers of their own")
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	shared := &ownStack{t: t, root: root, dir: filepath.Join(root, ".local", "fault-stack")}
	if out, err := shared.script("install"); err != nil {
		t.Fatalf("stack.sh install: %v: %s", err, out)
	}
	s := &ownStack{t: t, root: root, dir: t.TempDir(), dynamoPort: freePort(t), queuePort: freePort(t), env: env}
	for _, d := range []string{"lib", "native"} {
		if err := os.Symlink(filepath.Join(shared.dir, d), filepath.Join(s.dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	s.start()
	return s
}

func (s *ownStack) start() {
	t := s.t
	t.Cleanup(func() {
		for _, svc := range []string{"dynamodb", "elasticmq"} {
			s.signal(svc, syscall.SIGCONT)
		}
		if out, err := s.script("stop"); err != nil {
			t.Logf("stack.sh stop: %v: %s", err, out)
		}
	})
	if out, err := s.script("start"); err != nil {
		t.Fatalf("stack.sh start: %v: %s", err, out)
	}
}

func (s *ownStack) script(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(s.root, "local", "stack", "stack.sh")}, args...)...)
	cmd.Env = append(devstack.EnvWithout(os.Environ(), devstack.PersonalVars()...), "EVS_STACK_DIR="+s.dir, "DYNAMODB_PORT="+strconv.Itoa(s.dynamoPort),
		"ELASTICMQ_PORT="+strconv.Itoa(s.queuePort), "ELASTICMQ_STATS_PORT="+strconv.Itoa(freePort(s.t)))
	cmd.Env = append(cmd.Env, s.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pid is the server's process id, as the script recorded it.
func (s *ownStack) pid(svc string) int {
	b, err := os.ReadFile(filepath.Join(s.dir, "run", svc+".pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func (s *ownStack) signal(svc string, sig syscall.Signal) {
	if pid := s.pid(svc); pid > 0 {
		syscall.Kill(pid, sig)
	}
}

// freeze stops the server's process (SIGSTOP) until resume: connections
// stay open and requests wait, as when a database stalls.
func (s *ownStack) freeze(svc string) { s.signal(svc, syscall.SIGSTOP) }
func (s *ownStack) resume(svc string) { s.signal(svc, syscall.SIGCONT) }

// kill ends the server's process at once (SIGKILL), as a crash would, and
// waits until its port is closed. The test's supervisor, or its cleanup,
// starts it again.
func (s *ownStack) kill(svc string) {
	s.t.Helper()
	pid := s.pid(svc)
	if pid <= 0 {
		s.t.Fatalf("%s: no pid recorded", svc)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	s.t.Fatalf("%s (pid %d) still alive after SIGKILL", svc, pid)
}

func (s *ownStack) dynamoEndpoint() string { return fmt.Sprintf("http://127.0.0.1:%d", s.dynamoPort) }
func (s *ownStack) queueEndpoint() string  { return fmt.Sprintf("http://127.0.0.1:%d", s.queuePort) }

// db is a client of this stack's DynamoDB Local, configured as the
// functions' are.
func (s *ownStack) db(opts ...func(*dynamodb.Options)) *dynamo.DB {
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", s.dynamoPort)
	return dynamo.New(devstack.AWSConfig(), append([]func(*dynamodb.Options){store.ClientOptions, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, opts...)...)
}

// store makes the tables on this stack and returns the store over them.
func (s *ownStack) store() (*store.Store, schema.Names) {
	s.t.Helper()
	db := s.db()
	names := schema.NamesWithPrefix(devstack.UniquePrefix(s.t.Name()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := devstack.EnsureTables(ctx, db.Client(), names); err != nil {
		s.t.Fatalf("create tables: %v", err)
	}
	return store.New(db, names), names
}
