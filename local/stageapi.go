package main

// A stage's control plane on this machine: the Lambda Invoke API for the
// admin and decision functions and the Step Functions API (StartExecution,
// DescribeExecution, SendTaskSuccess, SendTaskFailure) for the decision state
// machine, its executions run by aws-local-stepfunctions (run.mjs). The
// commands' remote mode (--stage with --endpoint-url and EVS_STACK_OUTPUTS)
// talks to it exactly as it talks to AWS, so the remote path is tested
// without an account. It stands in for AWS's APIs; the handlers behind it
// are the functions' own.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/strictjson"
	"github.com/evs-kyb/evs/shared/workflow"
)

// Names the stand-in answers to, as a stack's outputs would give them.
const (
	localAdminFunction = "admin"
	localStateMachine  = "arn:aws:states:us-east-1:000000000000:stateMachine:decision"
)

// localStageOutputs are the stack outputs of the stand-in.
func localStageOutputs() string {
	b, _ := json.Marshal(map[string]string{outputAdminFunction: localAdminFunction, outputDecisionSM: localStateMachine})
	return string(b)
}

// stageAPI serves the stand-in. base is its own URL, which the executions'
// tasks call back.
type stageAPI struct {
	ctx      context.Context
	admin    boot.AdminHandler
	decision boot.DecisionHandler
	base     string

	mu        sync.Mutex
	execs     map[string]*stageExecution // by ARN
	approvals map[string]chan approvalAnswer
	// early are answers given before run.mjs waited for them, by token.
	early map[string]approvalAnswer
}

// running reports whether an execution of this name runs (s.mu held).
func (s *stageAPI) running(name string) bool {
	for _, x := range s.execs {
		if x.name == name && x.result == nil && x.runErr == nil {
			return true
		}
	}
	return false
}

type stageExecution struct {
	arn, name, input string
	started, stopped time.Time
	result           *WorkflowResult
	runErr           error
}

type approvalAnswer struct {
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	Cause  string          `json:"cause,omitempty"`
}

func newStageAPI(ctx context.Context, admin boot.AdminHandler, decision boot.DecisionHandler) *stageAPI {
	return &stageAPI{ctx: ctx, admin: admin, decision: decision, execs: map[string]*stageExecution{}, approvals: map[string]chan approvalAnswer{}, early: map[string]approvalAnswer{}}
}

// Handler routes the Lambda Invoke API by path and the Step Functions API
// (JSON 1.0, X-Amz-Target) at /.
func (s *stageAPI) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/2015-03-31/functions/"+localAdminFunction+"/", lambdaInvokeAPI(s.ctx, localAdminFunction, s.admin))
	mux.Handle("/2015-03-31/functions/decision/", lambdaInvokeAPI(s.ctx, "decision", s.decision))
	mux.HandleFunc("POST /approvals", s.awaitApproval)
	mux.HandleFunc("POST /{$}", s.stepFunctions)
	return mux
}

// maxStageRequest bounds a request to the local Step Functions API (an
// execution's input is at most 256 KiB in AWS).
const maxStageRequest = 512 << 10

func (s *stageAPI) stepFunctions(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
	// The members of the four operations served, as the Step Functions API
	// names them; read strictly, as the stage would refuse what it does not
	// know (ValidationException).
	var in struct {
		StateMachineArn string `json:"stateMachineArn"`
		Name            string `json:"name"`
		Input           string `json:"input"`
		TraceHeader     string `json:"traceHeader"`
		ExecutionArn    string `json:"executionArn"`
		IncludedData    string `json:"includedData"`
		TaskToken       string `json:"taskToken"`
		Output          string `json:"output"`
		Error           string `json:"error"`
		Cause           string `json:"cause"`
	}
	body, more, err := capped.Read(r.Body, maxStageRequest)
	if err == nil && more {
		err = fmt.Errorf("the body is over %d bytes", maxStageRequest)
	}
	if err == nil {
		err = strictjson.Decode(body, &in)
	}
	if err != nil {
		sfnError(w, "ValidationException", err.Error())
		return
	}
	switch op {
	case "StartExecution":
		s.start(w, in.StateMachineArn, in.Name, in.Input)
	case "DescribeExecution":
		s.describe(w, in.ExecutionArn)
	case "SendTaskSuccess":
		s.answer(w, in.TaskToken, approvalAnswer{Output: json.RawMessage(in.Output)})
	case "SendTaskFailure":
		s.answer(w, in.TaskToken, approvalAnswer{Error: in.Error, Cause: in.Cause})
	default:
		sfnError(w, "UnknownOperationException", "the local Step Functions API does not serve "+op)
	}
}

// start runs an execution in the background; a second start of the same
// name with the same input is the same execution, as in AWS.
func (s *stageAPI) start(w http.ResponseWriter, machine, name, input string) {
	if machine != localStateMachine {
		sfnError(w, "StateMachineDoesNotExist", "State Machine Does Not Exist: '"+machine+"'")
		return
	}
	x, err := s.startExecution(name, input)
	if err != nil {
		sfnError(w, "ExecutionAlreadyExists", "Execution Already Exists: '"+executionARN(name)+"'")
		return
	}
	sfnJSON(w, map[string]any{"executionArn": x.arn, "startDate": epoch(x.started)})
}

// executionARN is the ARN of the local state machine's execution of name.
func executionARN(name string) string {
	return strings.Replace(localStateMachine, ":stateMachine:", ":execution:", 1) + ":" + name
}

// startExecution starts an execution in the background, or answers the one
// of that name running with that input; workflow.ErrExists otherwise.
func (s *stageAPI) startExecution(name, input string) (stageExecution, error) {
	if name == "" {
		name = fmt.Sprintf("local-%d", time.Now().UnixNano())
	}
	arn := executionARN(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.execs[arn]
	// As in AWS: the same name and input while it runs is the same
	// execution; any start of a finished one's name is refused.
	if ok && (x.input != input || x.result != nil || x.runErr != nil) {
		return stageExecution{}, workflow.ErrExists
	}
	if !ok {
		x = &stageExecution{arn: arn, name: name, input: input, started: time.Now()}
		s.execs[arn] = x
		go s.run(x)
	}
	return *x, nil
}

func (s *stageAPI) run(x *stageExecution) {
	res, err := runExecution(s.ctx, execution{LambdaEndpoint: s.base, Name: x.name, Input: []byte(x.input), ApprovalEndpoint: s.base + "/approvals"})
	s.mu.Lock()
	defer s.mu.Unlock()
	x.result, x.runErr, x.stopped = &res, err, time.Now()
}

// execution is the execution of arn as it stands.
func (s *stageAPI) execution(arn string) (stageExecution, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.execs[arn]
	if !ok {
		return stageExecution{}, false
	}
	return *x, true
}

func (s *stageAPI) describe(w http.ResponseWriter, arn string) {
	x, ok := s.execution(arn)
	if !ok {
		sfnError(w, "ExecutionDoesNotExist", "Execution Does Not Exist: '"+arn+"'")
		return
	}
	out := map[string]any{"executionArn": x.arn, "stateMachineArn": localStateMachine, "name": x.name, "input": x.input,
		"startDate": epoch(x.started), "status": "RUNNING"}
	switch {
	case x.runErr != nil:
		out["status"], out["error"], out["cause"] = "FAILED", "States.Runtime", x.runErr.Error()
	case x.result != nil && x.result.Status == "SUCCEEDED":
		out["status"], out["output"] = "SUCCEEDED", string(x.result.Output)
	case x.result != nil:
		out["status"], out["error"], out["cause"] = x.result.Status, x.result.Error, x.result.Cause
	}
	if !x.stopped.IsZero() {
		out["stopDate"] = epoch(x.stopped)
	}
	sfnJSON(w, out)
}

// awaitApproval holds an execution's approval task until SendTaskSuccess
// or SendTaskFailure names its token.
func (s *stageAPI) awaitApproval(w http.ResponseWriter, r *http.Request) {
	// What run.mjs sends once the await task has recorded the wait.
	var msg struct {
		TaskToken string `json:"task_token"`
		Execution string `json:"execution"`
	}
	body, more, err := capped.Read(r.Body, maxStageRequest)
	if err != nil || more || strictjson.Decode(body, &msg) != nil || msg.TaskToken == "" {
		http.Error(w, "not an approval request with a task token", http.StatusBadRequest)
		return
	}
	ch := make(chan approvalAnswer, 1)
	s.mu.Lock()
	if a, ok := s.early[msg.TaskToken]; ok {
		// Answered between the wait being recorded and this call.
		delete(s.early, msg.TaskToken)
		ch <- a
	}
	s.approvals[msg.TaskToken] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.approvals, msg.TaskToken)
		s.mu.Unlock()
	}()
	select {
	case a := <-ch:
		json.NewEncoder(w).Encode(a)
	case <-r.Context().Done():
	case <-s.ctx.Done():
	}
}

func (s *stageAPI) answer(w http.ResponseWriter, token string, a approvalAnswer) {
	if err := s.answerTask(token, a); err != nil {
		sfnError(w, "TaskDoesNotExist", "Task Does Not Exist")
		return
	}
	sfnJSON(w, map[string]any{})
}

// answerTask gives an approval task its answer: at once to the run waiting
// on it, or kept for it when its wait is recorded but run.mjs has not asked
// yet; workflow.ErrTaskGone when no running execution has the token.
func (s *stageAPI) answerTask(token string, a approvalAnswer) error {
	s.mu.Lock()
	ch, ok := s.approvals[token]
	if !ok && s.running(strings.TrimPrefix(token, "local-token-")) {
		s.early[token] = a
		s.mu.Unlock()
		return nil
	}
	if ok {
		// Answered once: a second answer finds no task, as in AWS.
		delete(s.approvals, token)
	}
	s.mu.Unlock()
	if !ok {
		return workflow.ErrTaskGone
	}
	ch <- a
	return nil
}

func sfnJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	json.NewEncoder(w).Encode(v)
}

func sfnError(w http.ResponseWriter, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// cmdStageAPI serves the stand-in over the local store until interrupted,
// so the commands' --stage mode can be tried on this machine.
func cmdStageAPI(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("stage-api", flag.ContinueOnError)
	port := fs.Int("port", 4566, "port on 127.0.0.1")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e, err := openServer(ctx)
	if err != nil {
		return err
	}
	h, err := localAdmin(e)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		return err
	}
	decide, err := decisionService(e, localProviderURL())
	if err != nil {
		return err
	}
	api := newStageAPI(ctx, h, decide)
	api.base = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Printf("export %s='%s' AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local\n", stackOutputsVar, localStageOutputs())
	fmt.Printf("# then: go run ./local account list --stage local --endpoint-url %s\n", api.base)
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}
