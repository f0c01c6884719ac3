package main

// The decision state machine run locally: infra/statemachine/decision.asl.json
// interpreted by aws-local-stepfunctions (Node, local/stepfunctions/run.mjs),
// its Lambda tasks answered by the decision function's own handler, served
// over the Lambda invoke API on a loopback port. So the ASL's paths,
// ResultSelectors, Choice and Catch-to-Fail wiring are exercised with the
// real handler, which `decide` (the two phases called directly) does not.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack"
)

// WorkflowResult is how one execution ended, as run.mjs reports it.
type WorkflowResult struct {
	Execution string          `json:"execution"`
	Status    string          `json:"status"`           // SUCCEEDED or FAILED
	Output    json.RawMessage `json:"output,omitempty"` // the review, when SUCCEEDED
	Error     string          `json:"error,omitempty"`  // the Fail state's error, e.g. IllegalTransition
	Cause     string          `json:"cause,omitempty"`  // for a refusal, the Lambda error document, as in AWS
	States    []string        `json:"states"`           // the states entered, in order
}

// errNoNode: the interpreter needs Node.js.
var errNoNode = errors.New("the decision workflow runs on Node.js (20 or later), which is not installed")

// runWorkflow runs req through the decision state machine. The execution is
// named after req.ActionID (or a fresh name, which then names the action, as
// in AWS). approval answers the four-eyes wait as SendTaskSuccess's output
// would ({"signature": …}), or nil for the second operator's refusal. It
// returns an error only when the execution could not be run; a refused
// action is a FAILED result.
func runWorkflow(ctx context.Context, decide boot.DecisionHandler, req decisions.Request, approval json.RawMessage) (WorkflowResult, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return WorkflowResult{}, err
	}
	srv := &http.Server{Handler: lambdaInvokeAPI(ctx, "decision", decide), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) // returns when Close runs
	defer srv.Close()

	name := req.ActionID
	if name == "" {
		name = fmt.Sprintf("local-%d", time.Now().UnixNano())
	}
	input, err := json.Marshal(req)
	if err != nil {
		return WorkflowResult{}, err
	}
	return runExecution(ctx, execution{LambdaEndpoint: "http://" + ln.Addr().String(), Name: name, Input: input, Approval: approval})
}

// execution is one run of the decision state machine in the interpreter.
type execution struct {
	// LambdaEndpoint serves the decision function over the Lambda invoke API.
	LambdaEndpoint string
	Name           string
	Input          []byte
	// Approval answers the four-eyes wait at once (nil: refused), unless
	// ApprovalEndpoint is given, which is asked and waited for.
	Approval         json.RawMessage
	ApprovalEndpoint string
}

// runExecution runs the state machine through run.mjs. It returns an error
// only when the execution could not be run; a refused action is a FAILED
// result.
func runExecution(ctx context.Context, x execution) (WorkflowResult, error) {
	args, err := runnerArgs(x)
	if err != nil {
		return WorkflowResult{}, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return WorkflowResult{}, errNoNode
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		return WorkflowResult{}, err
	}
	if err := installInterpreter(ctx, root); err != nil {
		return WorkflowResult{}, err
	}
	args = append([]string{filepath.Join(root, "local", "stepfunctions", "run.mjs")}, args...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return WorkflowResult{}, fmt.Errorf("run.mjs: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	res := WorkflowResult{Execution: x.Name}
	if err := json.Unmarshal(out, &res); err != nil {
		return WorkflowResult{}, fmt.Errorf("run.mjs printed %q: %w", out, err)
	}
	return res, nil
}

// runnerArgs are run.mjs's options for x, each as --name=value: Node's
// parseArgs takes a separate value that starts with '-' (an execution named
// -x, a negative number) for an option of its own and fails, while an
// inline value is taken as it is. An approval must be JSON, so nothing
// reaches the runner that it cannot read.
func runnerArgs(x execution) ([]string, error) {
	if x.Approval != nil && !json.Valid(x.Approval) {
		return nil, fmt.Errorf("the approval answer is not JSON: %q", x.Approval)
	}
	if x.LambdaEndpoint == "" || x.Name == "" {
		return nil, errors.New("the workflow runner needs a Lambda endpoint and an execution name")
	}
	args := []string{"--lambda-endpoint=" + x.LambdaEndpoint, "--name=" + x.Name}
	if len(x.Input) > 0 {
		args = append(args, "--input="+string(x.Input))
	}
	switch {
	case x.ApprovalEndpoint != "":
		args = append(args, "--approval-endpoint="+x.ApprovalEndpoint)
	case x.Approval != nil:
		args = append(args, "--approval="+string(x.Approval))
	}
	return args, nil
}

// installInterpreter installs aws-local-stepfunctions into .tools/sfn when
// it is missing (install.sh does nothing when it is there), so a fresh
// clone runs the workflow without a make step.
func installInterpreter(ctx context.Context, root string) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "local", "stepfunctions", "install.sh"))
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("local/stepfunctions/install.sh: %w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// lambdaInvokeAPI serves handler as the Lambda function fn over the Lambda
// invoke API, POST /2015-03-31/functions/<fn>/invocations, answering as
// Lambda does: the handler's output, or, when it fails, 200 with
// X-Amz-Function-Error and {"errorMessage", "errorType"}, the error type
// named as the Go runtime names it (an InvokeResponse_Error's own Type,
// otherwise the error's Go type name). lambda.NewHandler decodes the
// payload and encodes the result exactly as lambda.Start does.
func lambdaInvokeAPI(ctx context.Context, fn string, handler any) http.Handler {
	h := lambda.NewHandler(handler)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/"+fn+"/invocations", func(w http.ResponseWriter, r *http.Request) {
		var payload bytes.Buffer
		if _, err := payload.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// ctx, not the request's: the function runs to the end whatever the
		// caller does, and logs with the runner's logger. Each invocation
		// has a request id, as in Lambda.
		id := randomID()
		w.Header().Set("X-Amzn-RequestId", id)
		out, err := h.Invoke(lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: id}), payload.Bytes())
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			// The runtime asserts the type; it does not unwrap.
			ie, ok := err.(messages.InvokeResponse_Error)
			if !ok {
				t := reflect.TypeOf(err)
				if t.Kind() == reflect.Pointer {
					t = t.Elem()
				}
				ie = messages.InvokeResponse_Error{Type: t.Name(), Message: err.Error()}
			}
			out, _ = json.Marshal(ie)
		}
		w.Write(out) // a caller that left cannot be answered
	})
	return mux
}
