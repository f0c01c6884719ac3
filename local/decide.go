package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// cliActions maps the command line's action names to the service's.
var cliActions = map[string]domain.Action{
	"assign": domain.ActionAssign, "start": domain.ActionStart, "escalate": domain.ActionEscalate,
	"escalate-to-aml": domain.ActionEscalateToAML, "approve": domain.ActionApprove, "reject": domain.ActionReject,
	"cancel": domain.ActionCancel, "queue-checks": domain.ActionQueueChecks, "adjudicate-match": domain.ActionAdjudicateMatch,
	"assess-risk": domain.ActionAssessRisk, "update-profile": domain.ActionUpdateProfile, "open-periodic-review": domain.ActionOpenPeriodicReview,
	"end-relationship": domain.ActionEndRelationship, "record-party": domain.ActionRecordParty,
}

// cmdDecide runs an operator action through the decision function's own
// handler, the two phases the state machine runs (validate, then apply),
// and prints the resulting review as JSON.
func cmdDecide(ctx context.Context, args []string) error {
	a, err := parseDecide(args)
	if err != nil {
		return err
	}
	// The request's own rules (fields the action takes, its reason, text
	// limits) before anything is read or the workflow runner started; the
	// account, when left out, is found below from the operator.
	pre := a.req
	if pre.AccountID == 0 {
		pre.AccountID = 1
	}
	if err := decisions.CheckRequest(pre); err != nil {
		return fmt.Errorf("%s: %s", domain.FailureName(err), domain.Refusal(err))
	}
	if a.target.remote() {
		if a.req.AccountID <= 0 {
			return usageError{"decide: --account is required with --stage"}
		}
		if a.workflow || a.second != 0 {
			return usageError{"decide: with --stage the action runs in the stage's workflow; a second approver answers with `decide confirm`"}
		}
		return decideOnStage(ctx, a.target, a.req, a.wait)
	}
	return a.decideHere(ctx)
}

// decideArgs is a decide command line: the request, and how to run it.
type decideArgs struct {
	req decisions.Request
	// approval is a declared second approver's answer, nil without one.
	approval json.RawMessage
	second   int64
	workflow bool
	wait     time.Duration
	target   targetFlags
}

func parseDecide(args []string) (decideArgs, error) {
	if len(args) == 0 {
		return decideArgs{}, usageError{"decide: an action is required"}
	}
	action, ok := cliActions[args[0]]
	if !ok {
		return decideArgs{}, usageError{fmt.Sprintf("decide: unknown action %q", args[0])}
	}
	fs := flag.NewFlagSet("decide "+args[0], flag.ContinueOnError)
	review := idFlag(fs, "review", "review id (required)")
	operator := idFlag(fs, "operator", "operator id (required)")
	account := idFlag(fs, "account", "account id (default on the local store: the operator's account)")
	reason := fs.String("reason", "", "why")
	actionID := fs.String("action-id", "", "the action's id; repeating one applies nothing twice (default: a fresh one)")
	assignee := idFlag(fs, "assignee", "assign: the operator to assign")
	level := fs.String("level", "", "assess-risk: low, medium or high")
	match := fs.String("match", "", "adjudicate-match: the match id")
	verdict := fs.String("verdict", "", "adjudicate-match: true_positive or false_positive")
	website := fs.String("website-url", "\x00", "update-profile: website URL (empty clears)")
	social := fs.String("social-url", "\x00", "update-profile: social URL (empty clears)")
	summary := fs.String("summary", "\x00", "update-profile: business activity summary (empty clears)")
	party := partyFlags(fs)
	second := idFlag(fs, "second-approver", "a declared second operator, where the account requires four eyes: always refused (SignatureRequired), since a second approval must be signed in the console; left out with --workflow: the second operator refuses")
	seen := fs.String("seen", "", "the ETag of the entity's dossier (GET /api/v1/entities/{id}.md) the decision is taken on: refused with StaleView if it changed since")
	workflow := fs.Bool("workflow", false, "run the action through the decision state machine (infra/statemachine) in aws-local-stepfunctions (needs Node.js)")
	wait := durationFlag(fs, "wait", time.Minute, "with --stage: how long to wait for the execution's result")
	t := addTargetFlags(fs)
	// Every flag is checked here, before anything is read or the workflow
	// runner started: an id given as 0 or negative, a negative --wait, is
	// a usage error naming the flag.
	if err := parseFlags(fs, args[1:]); err != nil {
		return decideArgs{}, err
	}
	if *review == 0 || *operator == 0 {
		return decideArgs{}, usageError{"decide: --review and --operator are required"}
	}
	opt := func(v string) *string {
		if v == "\x00" {
			return nil
		}
		return &v
	}
	id := *actionID
	if id == "" {
		id = fmt.Sprintf("cli-%d", time.Now().UnixNano())
	}
	a := decideArgs{second: *second, workflow: *workflow, wait: *wait, target: t}
	a.req = decisions.Request{
		Action: action, AccountID: *account, ReviewID: *review, OperatorID: *operator, ActionID: id, Reason: *reason,
		AssigneeID: *assignee, RiskLevel: *level, MatchID: *match, Verdict: *verdict,
		WebsiteURL: opt(*website), SocialURL: opt(*social), ActivitySummary: opt(*summary),
		Seen: *seen,
	}
	if err := party.set(&a.req); err != nil {
		return decideArgs{}, err
	}
	// A declared second approver reaches Apply as the workflow's approval
	// answer would: beside the request, never in it (and is refused there).
	if *second != 0 {
		a.approval, _ = json.Marshal(decisions.Approval{SecondApproverID: *second})
	}
	return a, nil
}

// decideHere runs the action on the local store: through the workflow
// with --workflow, else through the handler's two phases.
func (a decideArgs) decideHere(ctx context.Context) error {
	e, err := open(ctx)
	if err != nil {
		return err
	}
	req := a.req
	if req.AccountID == 0 {
		if req.AccountID, err = operatorAccount(ctx, e, req.OperatorID); err != nil {
			return err
		}
	}
	decide, err := decisionService(e, localProviderURL())
	if err != nil {
		return err
	}
	if !a.workflow {
		return validateThenApply(ctx, decide, req, a.approval)
	}
	res, err := runWorkflow(ctx, decide, req, a.approval)
	if err != nil {
		return err
	}
	if err := printJSON(res); err != nil {
		return err
	}
	if res.Status != "SUCCEEDED" {
		return fmt.Errorf("%s: %s", res.Error, res.Cause)
	}
	return nil
}

// validateThenApply runs the two phases the state machine runs, as one
// invocation each, and prints what was decided.
func validateThenApply(ctx context.Context, decide boot.DecisionHandler, req decisions.Request, approval json.RawMessage) error {
	// An invocation's id, as Lambda gives one: the audit record keeps it.
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "local-" + randomID()})
	v, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseValidate, Request: req}))
	if err != nil {
		return taskError(err)
	}
	if v.RequiresSecondApproval && approval == nil {
		return errors.New(domain.FailSecondApprover + ": this account requires a second operator, who approves with their passkey in the console")
	}
	apply := decisions.TaskInput{Phase: decisions.PhaseApply, Request: req, Approval: approval}
	out, err := decide(ctx, decisions.Document(apply))
	if err != nil {
		return taskError(err)
	}
	return printJSON(decided{out.Review, out.Changed})
}

// decided is what a decision prints: the review as it now stands, and
// what the action changed (a verdict on a match, a risk level: the
// entity's, which the review alone would not show).
type decided struct {
	*decisions.ReviewOut
	Changed map[string]decisions.Change `json:"changed,omitempty"`
}

// decisionService is the decision function's handler, built by boot's
// table, with the providers pointed at the local simulator for
// queue-checks (none without simURL: every check fails).
func decisionService(e *env, simURL string) (boot.DecisionHandler, error) {
	var p providers
	if simURL != "" {
		p = simulatorProviders(simURL)
	}
	return boot.As[boot.DecisionHandler]("decision", p.deps(e.store, e.log))
}

// localProviderURL is the simulator `make local` runs.
func localProviderURL() string {
	return "http://127.0.0.1:" + envDefault("SIM_PORT", "3100")
}

// operatorAccount finds an operator's account by looking through the
// accounts (a local convenience; the state machine always names it).
func operatorAccount(ctx context.Context, e *env, operatorID int64) (int64, error) {
	accts, err := e.store.ListAccounts(ctx)
	if err != nil {
		return 0, err
	}
	for _, a := range accts {
		if _, err := e.store.Operator(ctx, a.ID, operatorID); err == nil {
			return a.ID, nil
		}
	}
	return 0, fmt.Errorf("NotFound: no operator %d in any account", operatorID)
}

// cmdAudit prints an entity's audit trail (oldest first) or, without
// --entity, the account's (newest first), one JSON line per record; with
// --verify it checks the entity's hash chain (without --entity: the
// account's own actions') instead.
func cmdAudit(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "export" {
		return cmdAuditExport(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "extend" {
		return cmdAuditExtend(ctx, args[1:])
	}
	c := newAdminCmd("audit")
	entity := idFlag(c.fs, "entity", "entity id (default: the whole account's trail, newest first; with --verify, the account's own chain)")
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	limit := limitFlag(c.fs, "limit", 100, "without --entity: at most this many records")
	verify := c.fs.Bool("verify", false, "check the entity's (or the account's own) audit hash chain against its head and latest export")
	dossierOf := c.fs.String("dossier", "", "print the dossier (Markdown) the decision with this action id was taken on, and check its hash")
	lf := addListFlags(c.fs)
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	if err := lf.check("audit", !*verify && *dossierOf == ""); err != nil {
		return err
	}
	acct, err := c.account(*account)
	if err != nil {
		return err
	}
	if *verify {
		return auditVerify(ctx, c, acct, *entity)
	}
	if *dossierOf != "" {
		return auditDossier(ctx, c, acct, *dossierOf)
	}
	doc := map[string]any{"command": "audit.list", "account_id": acct}
	if *entity > 0 {
		doc["entity_id"] = *entity
	}
	if given(c.fs, "limit") {
		doc["limit"] = *limit
	}
	var out struct {
		Audit []admin.AuditView `json:"audit"`
	}
	if err := c.send(ctx, doc, &out); err != nil {
		return err
	}
	return printList(lf, out.Audit, auditColumns)
}

// auditColumns are audit's table: when, what, who, how they were known,
// on what, why.
var auditColumns = []column[admin.AuditView]{
	{"AT", func(a admin.AuditView) string { return a.At }},
	{"ACTION", func(a admin.AuditView) string { return string(a.Action) }},
	{"BY", func(a admin.AuditView) string {
		if a.OperatorID == 0 {
			return short(a.Actor)
		}
		if a.OperatorName == "" {
			return idCell(a.OperatorID)
		}
		return fmt.Sprintf("%s (%d)", short(a.OperatorName), a.OperatorID)
	}},
	{"HOW", howCell},
	{"ENTITY", func(a admin.AuditView) string { return idCell(a.EntityID) }},
	{"REVIEW", func(a admin.AuditView) string { return optIDCell(a.ReviewID) }},
	{"REASON", func(a admin.AuditView) string { return short(a.Reason) }},
	{"ACTION ID", func(a admin.AuditView) string { return a.ActionID }},
}

// howCell is how a record's operator was known: passkey (then each
// signature: role, operator, credential, and whether it verifies against
// the key the account's chain recorded), declared, or session (then the
// session's passkey), with DOES NOT COUNT for an unsigned decision the one
// rule does not count; empty for what is no decision.
func howCell(a admin.AuditView) string {
	how := string(a.Identity)
	if cred := domain.SessionCredentialOf(domain.AuditRecord{Identity: a.Identity, Actor: a.Actor}); cred != "" {
		how += " " + cred
	}
	for i, s := range a.Signatures {
		if s.Role == passkey.RoleUnsigned { // an unsigned decision the one rule does not count
			how += " DOES NOT COUNT"
			continue
		}
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		verifies := "verified"
		if !s.Verified {
			verifies = "DOES NOT VERIFY"
		}
		how += fmt.Sprintf("%s%s %d %s %s", sep, s.Role, s.OperatorID, s.CredentialID, verifies)
	}
	return how
}

// auditVerify prints every record verified (one JSON line each, in chain
// order: the trail to hand over), then the check as one JSON line and the
// head's hash, and fails naming the first broken record when the chain does
// not hold.
func auditVerify(ctx context.Context, c *adminCmd, acct, entity int64) error {
	var out admin.AuditChainView
	doc := map[string]any{"command": "audit.verify", "account_id": acct, "entity_id": entity}
	if err := c.send(ctx, doc, &out); err != nil {
		return err
	}
	for _, l := range out.Trail {
		printLine(l)
	}
	trail, sigs := out.Trail, out.Signatures
	out.Trail, out.Signatures = nil, nil // printed apart
	printLine(out)
	out.Trail, out.Signatures = trail, sigs
	fmt.Printf("head of entity %d's chain: seq %d hash %s\n", entity, out.Head.Seq, out.Head.Hash)
	if out.Broken != nil {
		return errors.New(out.Broken.Message)
	}
	fmt.Printf("the chain holds: %d records\n", out.Records)
	if l := out.Locked; l != nil && l.Checked {
		fmt.Printf("its locked copies agree: %d records locked (through seq %d), %d not yet locked\n", l.Locked, l.LockedThrough, l.NotYetLocked)
	}
	for _, s := range sigs {
		switch {
		case !s.Verified && s.Role == passkey.RoleUnsigned:
			return fmt.Errorf("the decision %s (operator %d) does not count: %s", s.ActionID, s.OperatorID, s.Problem)
		case !s.Verified:
			return fmt.Errorf("signature of %s (%s, operator %d) does not verify: %s", s.ActionID, s.Role, s.OperatorID, s.Problem)
		}
	}
	if len(sigs) > 0 {
		fmt.Printf("every signature verifies: %d, against the public keys the account's chain recorded\n", len(sigs))
	}
	return nil
}

// cmdAuditExport runs the records' daily part now (admin command
// audit.export), for one account or every one, and prints what it did.
// Once it answers, every record committed before it is locked: what the
// streams had not locked yet, it locked.
func cmdAuditExport(ctx context.Context, args []string) error {
	return auditAccounts(ctx, "audit export", "audit.export", args, &admin.AuditExportView{})
}

// cmdAuditExtend is the one-off run that dates the copies locked before
// per-object dates (admin command audit.extend), for one account or every
// one, and prints what it did.
func cmdAuditExtend(ctx context.Context, args []string) error {
	return auditAccounts(ctx, "audit extend", "audit.extend", args, &admin.AuditExtendView{})
}

// auditAccounts sends an admin command about the records of one account
// (--account, by default on the local store the demo account) or, with
// --all, of every one, and prints its answer, read into out, on a line.
func auditAccounts(ctx context.Context, name, command string, args []string, out any) error {
	c := newAdminCmd(name)
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	all := c.fs.Bool("all", false, "every account")
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	doc := map[string]any{"command": command}
	if !*all {
		acct, err := c.account(*account)
		if err != nil {
			return err
		}
		doc["account_id"] = acct
	} else if given(c.fs, "account") {
		return usageError{name + ": --account and --all exclude each other"}
	}
	if err := c.send(ctx, doc, out); err != nil {
		return err
	}
	printLine(out)
	return nil
}

// auditDossier prints the dossier a decision was taken on, as its audit
// record keeps it, to standard output, and its check to standard error;
// it fails when the Markdown no longer hashes to the recorded SHA-256 (which
// the hash chain covers: audit --verify) or was not kept.
func auditDossier(ctx context.Context, c *adminCmd, acct int64, actionID string) error {
	var out admin.AuditDossierView
	doc := map[string]any{"command": "audit.dossier", "account_id": acct, "action_id": actionID}
	if err := c.send(ctx, doc, &out); err != nil {
		return err
	}
	fmt.Print(out.Markdown)
	switch {
	case !out.Kept:
		return fmt.Errorf("the dossier of %s was not kept (larger than %d bytes); its SHA-256 was %s", actionID, domain.MaxKeptDossier, out.DossierSHA256)
	case !out.Verified:
		return fmt.Errorf("MISMATCH: the dossier kept for %s hashes to %s, but the audit record says %s", actionID, out.ComputedSHA256, out.DossierSHA256)
	}
	fmt.Fprintf(os.Stderr, "verified: the dossier of %s (entity %d, %s) hashes to %s, as its audit record says\n", actionID, out.EntityID, out.DossierETag, out.DossierSHA256)
	return nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// taskError shows a refused task as the console shows a failed execution:
// the failure's name and cause.
func taskError(err error) error {
	var ie messages.InvokeResponse_Error
	if errors.As(err, &ie) {
		return fmt.Errorf("%s: %s", ie.Type, ie.Message)
	}
	return err
}
