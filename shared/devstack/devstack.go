// Package devstack finds, or starts, the local stand-ins for AWS that tests
// and the local runner use: DynamoDB Local and ElasticMQ, and the screening
// engine (yente over OpenSearch, screening.go), installed and run by the
// project's own script (local/stack/stack.sh). It gives integration tests
// tables of their own, dropped when the test ends.
package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Region is the region the local stack pretends to be in.
const Region = "us-east-1"

// DynamoDBEndpoint is DYNAMODB_ENDPOINT, or DynamoDB Local on 127.0.0.1 at
// DYNAMODB_PORT (8000).
func DynamoDBEndpoint() string {
	if v := os.Getenv("DYNAMODB_ENDPOINT"); v != "" {
		return v
	}
	return "http://127.0.0.1:" + envOr("DYNAMODB_PORT", "8000")
}

// SQSEndpoint is SQS_ENDPOINT, or ElasticMQ on 127.0.0.1 at ELASTICMQ_PORT (9324).
func SQSEndpoint() string {
	if v := os.Getenv("SQS_ENDPOINT"); v != "" {
		return v
	}
	return "http://127.0.0.1:" + envOr("ELASTICMQ_PORT", "9324")
}

// PersonalVars are the variables that point a local command at someone's
// own data, stores or servers (make local's folders, a DynamoDB elsewhere):
// a test that starts servers of its own leaves them out of their
// environment, so it never writes into what the person running it keeps.
func PersonalVars() []string {
	return []string{"DYNAMODB_DATA_DIR", "ELASTICMQ_DATA_DIR", "DYNAMODB_ENDPOINT", "SQS_ENDPOINT", "YENTE_URL", "EVS_RECORDS_DIR", "EVS_EVIDENCE_DIR", "EVS_DEMO_DIR"}
}

// EnvWithout is env (os.Environ's form) without the named variables.
func EnvWithout(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// AWSConfig is an AWS configuration for the local stack: static dummy
// credentials, so nothing ever reaches a real account.
func AWSConfig() aws.Config {
	return aws.Config{
		Region:      Region,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
}

var ensureOnce struct {
	sync.Mutex
	done bool
}

// Ensure makes sure DynamoDB Local and ElasticMQ answer and the screening
// engine is ready (yente's /readyz and a canary /match: YenteURL), starting
// them with the project's script when they do not (it starts only what is
// not running). Services already running (started by make, by another test
// package or by hand) are used as they are; a yente named by YENTE_URL need
// only answer.
func Ensure(ctx context.Context) error {
	ensureOnce.Lock()
	defer ensureOnce.Unlock()
	if ensureOnce.done {
		return nil
	}
	if answers(DynamoDBEndpoint()) && answers(SQSEndpoint()) && yenteAnswers(ctx) {
		ensureOnce.done = true
		return nil
	}
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "local", "stack", "stack.sh"), "start")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start local stack (local/stack/stack.sh start): %w", err)
	}
	if !answers(DynamoDBEndpoint()) {
		return errors.New("local stack started, but DynamoDB Local does not answer at " + DynamoDBEndpoint())
	}
	if err := errYenteNotReady(ctx); err != nil {
		return err
	}
	ensureOnce.done = true
	return nil
}

// answers reports whether something accepts connections at the endpoint.
func answers(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	// A port that accepts is not enough: the service must speak HTTP.
	hc := http.Client{Timeout: 2 * time.Second}
	resp, err := hc.Get(endpoint)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// RepoRoot finds the repository root: the nearest directory above the working
// directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("devstack: no go.mod above the working directory")
		}
		dir = parent
	}
}

// runningDataDir asks the stack script where the running service keeps
// its data on disk ("" when it runs in memory, or not at all).
func runningDataDir(service string) string {
	root, err := RepoRoot()
	if err != nil {
		return ""
	}
	out, err := exec.Command("bash", filepath.Join(root, "local", "stack", "stack.sh"), "data", service).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// UniquePrefix returns a table-name prefix no other run uses.
func UniquePrefix(label string) string {
	var b [4]byte
	rand.Read(b[:])
	label = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, label)
	if len(label) > 40 {
		label = label[:40]
	}
	return "t-" + label + "-" + hex.EncodeToString(b[:]) + "-"
}

// EvidenceDir is the local evidence blob store's directory (blob.Dir), the
// stand-in for the evidence bucket: EVS_EVIDENCE_DIR; else, when DynamoDB
// Local keeps its tables on disk (DYNAMODB_DATA_DIR, as make local does),
// evidence beside that directory (.local/data/evidence), so the two are
// kept and wiped together; else, when it keeps them in memory, evidence
// under the stack's memory folder (.local/stack/memory/evidence), wiped
// when the stack starts such a server (stateDir).
func EvidenceDir() string { return stateDir("EVS_EVIDENCE_DIR", "evidence") }

// RecordsDir is the local records store's directory (records.Dir, written
// once per key), the stand-in for the records bucket under Object Lock:
// EVS_RECORDS_DIR, else found as EvidenceDir is, named records.
func RecordsDir() string { return stateDir("EVS_RECORDS_DIR", "records") }

// stateDir is a local store's directory: the variable's value; else name
// beside DynamoDB Local's data directory (DYNAMODB_DATA_DIR, or the one the
// running server was started with), kept and wiped with it; else, when
// that server keeps its tables in memory, name under the stack's memory
// folder, which the stack script wipes whenever it starts an in-memory
// DynamoDB Local, so records never outlive the tables they copy; else
// name under the stack's state directory.
func stateDir(envVar, name string) string {
	if v := os.Getenv(envVar); v != "" {
		return v
	}
	v := os.Getenv("DYNAMODB_DATA_DIR")
	if v == "" {
		// A command run beside make local, in a shell without make's
		// variables: the running DynamoDB Local says where its data is.
		v = runningDataDir("dynamodb")
	}
	return dirBeside(v, stackDir(), name)
}

// dirBeside is where a local store named name lives, given DynamoDB
// Local's data setting (a directory, InMemory, or "" when none runs) and
// the stack's state directory.
func dirBeside(data, stack, name string) string {
	switch data {
	case "":
		return filepath.Join(stack, name)
	case InMemory:
		return filepath.Join(stack, "memory", name)
	}
	return filepath.Join(filepath.Dir(filepath.Clean(data)), name)
}

// InMemory is what the stack script answers for the data of a server that
// keeps it in memory (stack.sh data dynamodb).
const InMemory = "memory"

// stackDir is the stack's state directory: EVS_STACK_DIR, default
// <repo>/.local/stack (as stack.sh has it).
func stackDir() string {
	if v := os.Getenv("EVS_STACK_DIR"); v != "" {
		return v
	}
	root, err := RepoRoot()
	if err != nil {
		root = "."
	}
	return filepath.Join(root, ".local", "stack")
}
