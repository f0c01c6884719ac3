//go:build linux

package main

// The functions as Lambda runs them: each binary, built with make build's
// flags for this machine's architecture, runs under the Lambda Runtime
// Interface Emulator (the aws-lambda-rie the SAM CLI package ships, in
// .tools/sam-venv, installed by make sam-install, which make test runs
// first), with the environment its shared/deploy entry describes: the names
// of fresh test tables on DynamoDB Local, the settings pointing at the
// provider simulator, the secrets given by value, the URLs of the test
// queues on ElasticMQ (review-events and admin send to the deliveries
// queue). A refused event (events/admin-refused.json) must come back as the
// function error it names. The sample events of
// events/ are posted to the emulator's invoke endpoint and the answers
// checked as TestSampleEvents checks them; the webhook event is re-signed at
// the current time, as the function reads a real clock.
//
// By hand, from the repository root, with DynamoDB Local running (make stack)
// and the local tables created (make local, or go run ./local account list):
//
//	make build BUILD_ARCH=amd64 BUILD_DIR=/tmp/evs-amd64
//	RIE=$(ls .tools/sam-venv/lib/python3*/site-packages/samcli/local/rapid/aws-lambda-rie-x86_64)
//	env -i AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local \
//	    DYNAMODB_ENDPOINT=http://127.0.0.1:8000 API_KEYS_TABLE=evs-local-api_keys LOG_LEVEL=info \
//	    $RIE --runtime-interface-emulator-address 127.0.0.1:9000 --runtime-api-address 127.0.0.1:9100 \
//	    /tmp/evs-amd64/authorizer/bootstrap
//	curl -s -d @events/authorizer.json http://127.0.0.1:9000/2015-03-31/functions/function/invocations
//
// (the sample key exists only in this test's tables, so against the local
// demo tables the authorizer answers Unauthorized; give it a key of make
// local's in the event's Authorization header to see it allow).

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/devstack/motoserver"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// lambdaBuildFlags are make build's go build flags (GO_BUILD in the
// Makefile), with CGO_ENABLED=0 and GOOS=linux in the environment.
var lambdaBuildFlags = []string{"-tags", "lambda.norpc", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid="}

// rieBinary finds the emulator for this machine in the SAM CLI's package.
func rieBinary(t *testing.T, root string) string {
	t.Helper()
	arch := map[string]string{"amd64": "x86_64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		t.Skipf("the Lambda runtime emulator exists for amd64 and arm64, not %s", runtime.GOARCH)
	}
	matches, _ := filepath.Glob(filepath.Join(root, ".tools", "sam-venv", "lib", "python3*", "site-packages",
		"samcli", "local", "rapid", "aws-lambda-rie-"+arch))
	if len(matches) == 0 {
		t.Skip("the Lambda runtime emulator comes with the SAM CLI, which is not installed in .tools/sam-venv: " +
			"run make sam-install (make test does it first)")
	}
	return matches[0]
}

// buildLambdas builds every function for linux and this machine's
// architecture, with make build's flags, in one go build: dir/<name>.
func buildLambdas(t *testing.T, root, dir string) {
	t.Helper()
	// The go command running this test (go test sets GOROOT for it), else
	// the one on PATH.
	goBin := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); statOK(p) {
			goBin = p
		}
	}
	args := append([]string{"build"}, lambdaBuildFlags...)
	args = append(args, "-o", dir+string(filepath.Separator), "./functions/...")
	cmd := exec.Command(goBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./functions/...: %v\n%s", err, out)
	}
}

// TestLambdaBuildFlagsMatchMakefile keeps lambdaBuildFlags and the
// Makefile's GO_BUILD one set of flags.
func TestLambdaBuildFlagsMatchMakefile(t *testing.T) {
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	want := `CGO_ENABLED=0 GOOS=linux GOARCH=$(BUILD_ARCH) $(GO) build -tags lambda.norpc -trimpath -buildvcs=false -ldflags "-s -w -buildid="`
	for _, line := range strings.Split(string(mk), "\n") {
		if name, value, ok := strings.Cut(line, ":="); ok && strings.TrimSpace(name) == "GO_BUILD" {
			if strings.TrimSpace(value) != want {
				t.Errorf("Makefile GO_BUILD = %s\nwant %s (or change lambdaBuildFlags with it)", strings.TrimSpace(value), want)
			}
			return
		}
	}
	t.Error("no GO_BUILD in the Makefile")
}

// rieEnv is the environment of a function under the emulator: what its
// catalogue entry names, and nothing of this process's (no real AWS
// credentials, profile or region can leak in).
func rieEnv(t *testing.T, f deploy.Function, names schema.Names, deps *sampleDeps) []string {
	t.Helper()
	env := []string{
		"AWS_REGION=" + devstack.Region,
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_CONFIG_FILE=/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"AWS_EC2_METADATA_DISABLED=true",
		"DYNAMODB_ENDPOINT=" + devstack.DynamoDBEndpoint(),
		"SQS_ENDPOINT=" + devstack.SQSEndpoint(),
		// What the emulator reports, as Lambda would.
		"AWS_LAMBDA_FUNCTION_NAME=" + f.Name,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=" + strconv.Itoa(f.MemoryMB),
		"AWS_LAMBDA_FUNCTION_TIMEOUT=" + strconv.Itoa(f.TimeoutSeconds),
	}
	tables := map[string]string{}
	for _, tb := range schema.Tables() {
		tables[tb.EnvVar] = names[tb.ID]
	}
	// Settings that must point at the simulator (or name the settings
	// area); the others keep their catalogue default.
	settings := map[string]string{"WATHQ_BASE_URL": deps.simURL, "YENTE_BASE_URL": deps.simURL, "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
		"SETTINGS_BASE_URL": sampleSettingsURL}
	queues := map[string]string{}
	for _, q := range deploy.Queues() {
		queues[q.EnvVar] = deps.queues[q.ID]
	}
	// The buckets made on moto's S3 server (the records bucket under
	// Object Lock): audit-export locks into it, admin reads it back.
	buckets := map[string]string{}
	for _, b := range deploy.Buckets() {
		buckets[b.EnvVar] = rieBucket(b)
	}
	if len(f.BucketIDs()) > 0 {
		env = append(env, "S3_ENDPOINT="+deps.s3Endpoint)
	}
	// Secrets, by value: boot.Secret reads the variable without _SECRET_ARN.
	secrets := map[string]string{
		"WATHQ_API_KEY_SECRET_ARN":                localWathqKey,
		"YENTE_API_KEY_SECRET_ARN":                localYenteKey,
		"OPENSANCTIONS_WEBHOOK_SECRET_SECRET_ARN": sampleWebhookSecret,
	}
	// The web function's decision state machine: the stand-in's name, as
	// no sample event starts an execution.
	workflows := map[string]string{deploy.DecisionStateMachineVar: localStateMachine}
	for _, name := range f.EnvVarNames() {
		if name == deploy.LogLevelVar {
			env = append(env, name+"=info")
			continue
		}
		if v, ok := tables[name]; ok {
			env = append(env, name+"="+v)
			continue
		}
		if v, ok := queues[name]; ok {
			env = append(env, name+"="+v)
			continue
		}
		if v, ok := buckets[name]; ok {
			env = append(env, name+"="+v)
			continue
		}
		if v, ok := workflows[name]; ok {
			env = append(env, name+"="+v)
			continue
		}
		set := false
		for _, s := range f.Settings {
			if s.EnvVar == name {
				v, ok := settings[name]
				if !ok {
					v = s.Default
				}
				env, set = append(env, name+"="+v), true
			}
		}
		for _, s := range f.Secrets {
			if s.EnvVar == name {
				v, ok := secrets[name]
				if !ok {
					t.Fatalf("%s: no local value for the secret %s: add one to rieEnv", f.Name, name)
				}
				env, set = append(env, strings.TrimSuffix(name, "_SECRET_ARN")+"="+v), true
			}
		}
		if !set {
			t.Fatalf("%s: the catalogue gives it %s, which rieEnv does not know how to set", f.Name, name)
		}
	}
	return env
}

// rieBucket is a bucket's name on the emulated functions' S3 server.
func rieBucket(b deploy.Bucket) string { return "evs-local-" + b.ID }

// freeAddr returns a 127.0.0.1 address nothing listens on just now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// emulator is one function running under aws-lambda-rie.
type emulator struct {
	fn   deploy.Function
	addr string
	out  *syncBuffer
	// done closes when the emulator exits: a dial that succeeds then
	// reached another listener on its port.
	done chan struct{}
}

// startEmulator starts the function's binary under the emulator and stops
// both when the test ends: SIGTERM (the emulator then kills its runtime),
// SIGKILL to the process group if it lingers. Its ports are picked free
// just before it binds them, so another listener may take one in between:
// an emulator that exits with "address already in use" is started again
// on other ports.
func startEmulator(t *testing.T, rie, bin string, f deploy.Function, env []string) *emulator {
	t.Helper()
	for attempt := 1; ; attempt++ {
		e, done := launchEmulator(t, rie, bin, f, env)
		// The emulator binds at once: one that lost its port has exited
		// within this time.
		select {
		case <-done:
			if attempt < 5 && strings.Contains(e.out.String(), "address already in use") {
				t.Logf("the emulator for %s lost its port to another listener; starting it again", f.Name)
				continue
			}
			t.Fatalf("the emulator for %s exited at start:\n%s", f.Name, tail(e.out.String(), 4000))
		case <-time.After(300 * time.Millisecond):
		}
		e.done = done
		return e
	}
}

func launchEmulator(t *testing.T, rie, bin string, f deploy.Function, env []string) (*emulator, chan struct{}) {
	t.Helper()
	e := &emulator{fn: f, addr: freeAddr(t), out: &syncBuffer{}}
	cmd := exec.Command(rie,
		"--runtime-interface-emulator-address", e.addr,
		"--runtime-api-address", freeAddr(t),
		bin)
	cmd.Env = env
	cmd.Dir = filepath.Dir(bin)
	cmd.Stdout, cmd.Stderr = e.out, e.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the emulator for %s: %v", f.Name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return e, done
}

// waitReady waits until the emulator accepts connections.
func (e *emulator) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-e.done:
			t.Fatalf("the emulator for %s exited:\n%s", e.fn.Name, tail(e.out.String(), 4000))
		default:
		}
		c, err := net.DialTimeout("tcp", e.addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the emulator for %s does not listen on %s: %v\n%s", e.fn.Name, e.addr, err, tail(e.out.String(), 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// functionError is a function's failure as the Invoke API answers it.
type functionError struct {
	ErrorMessage string `json:"errorMessage"`
	ErrorType    string `json:"errorType"`
}

// call posts an event to the emulator's invoke endpoint, as Lambda's
// Invoke API would, and returns the function's answer and, when it failed
// (a function error, or a failed init, is a 200 carrying errorMessage), its
// error.
func (e *emulator) call(t *testing.T, event []byte) ([]byte, *functionError) {
	t.Helper()
	client := &http.Client{Timeout: time.Duration(e.fn.TimeoutSeconds+10) * time.Second}
	resp, err := client.Post("http://"+e.addr+"/2015-03-31/functions/function/invocations", "application/json", bytes.NewReader(event))
	if err != nil {
		t.Fatalf("invoke %s: %v", e.fn.Name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("invoke %s: HTTP %d: %s", e.fn.Name, resp.StatusCode, body)
	}
	var fnErr functionError
	if json.Unmarshal(body, &fnErr) == nil && fnErr.ErrorMessage != "" {
		return body, &fnErr
	}
	return body, nil
}

// invoke calls the function and returns its answer, failing the test if
// the function failed.
func (e *emulator) invoke(t *testing.T, event []byte) []byte {
	t.Helper()
	body, fnErr := e.call(t, event)
	if fnErr != nil {
		t.Fatalf("%s failed: %s (%s)", e.fn.Name, fnErr.ErrorMessage, fnErr.ErrorType)
	}
	return body
}

// resignWebhook gives a webhook event a fresh timestamp and signature.
func resignWebhook(t *testing.T, raw []byte, secret string, at time.Time) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	headers, _ := ev["headers"].(map[string]any)
	multi, _ := ev["multiValueHeaders"].(map[string]any)
	body, _ := ev["body"].(string)
	id, _ := headers[webhooks.HeaderID].(string)
	sec, err := webhooks.ParseSecret(secret)
	if err != nil || headers == nil || multi == nil || id == "" {
		t.Fatalf("not a signed webhook event (secret error %v)", err)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	sig := webhooks.StandardSignature(sec, id, at.Unix(), []byte(body))
	headers[webhooks.HeaderTimestamp], multi[webhooks.HeaderTimestamp] = ts, []any{ts}
	headers[webhooks.HeaderSignature], multi[webhooks.HeaderSignature] = sig, []any{sig}
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestFunctionsUnderRuntimeEmulator runs every function's real binary under
// the Lambda runtime emulator and replays the sample events through it.
func TestFunctionsUnderRuntimeEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every function: not in -short mode")
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rie := rieBinary(t, root)
	binDir := t.TempDir()
	buildLambdas(t, root, binDir)

	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	deps := newSampleDeps(t)
	seedSampleWorld(t, st, deps.receiver.url())
	s3c := motoserver.Start(t)
	deps.s3Endpoint = aws.ToString(s3c.Options().BaseEndpoint)
	for _, b := range deploy.Buckets() {
		motoserver.Bucket(t, s3c, &s3.CreateBucketInput{Bucket: aws.String(rieBucket(b)), ObjectLockEnabledForBucket: aws.Bool(b.ObjectLockDays > 0)})
	}

	// Every function's emulator starts at once; the events then run in the
	// replay's order, so the same checks hold.
	emulators := map[string]*emulator{}
	for _, f := range deploy.Functions() {
		bin := filepath.Join(binDir, f.Name)
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("go build made no %s: %v", f.Name, err)
		}
		emulators[f.Name] = startEmulator(t, rie, bin, f, rieEnv(t, f, names, deps))
	}
	for _, e := range emulators {
		e.waitReady(t)
	}

	ran := map[string]bool{}
	for _, c := range sampleEvents() {
		t.Run(strings.TrimSuffix(c.file, ".json"), func(t *testing.T) {
			f, ok := functionOfEvent(c.file)
			if !ok {
				t.Fatalf("no function for %s", c.file)
			}
			ran[f.Name] = true
			e := emulators[f.Name]
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s under the emulator:\n%s", f.Name, tail(e.out.String(), 8000))
				}
			})
			raw := readSampleEvent(t, c.file)
			if f.Name == "provider-webhook" {
				raw = resignWebhook(t, raw, sampleWebhookSecret, time.Now())
			}
			if c.refused != nil {
				// A named failure reaches the caller as its errorType.
				out, fnErr := e.call(t, raw)
				if fnErr == nil {
					t.Fatalf("answered %s, want the refusal %s", out, c.refused.errorType)
				}
				c.refused.check(t, fnErr.ErrorType, fnErr.ErrorMessage)
				return
			}
			out := e.invoke(t, raw)
			if c.result != nil {
				c.result(t, out, st)
				return
			}
			if c.authz != nil {
				var r events.APIGatewayCustomAuthorizerResponse
				if err := json.Unmarshal(out, &r); err != nil {
					t.Fatalf("authorizer answer %s: %v", out, err)
				}
				c.authz(t, r)
				return
			}
			var r events.APIGatewayProxyResponse
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("proxy response %s: %v", out, err)
			}
			if r.StatusCode != c.status {
				t.Fatalf("statusCode = %d, want %d: %.300s", r.StatusCode, c.status, r.Body)
			}
			c.check(t, r)
		})
	}
	for _, f := range deploy.Functions() {
		if !ran[f.Name] {
			t.Errorf("%s ran no event under the emulator", f.Name)
		}
	}
	runRealPaths(t, emulators, st)
}

func statOK(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
