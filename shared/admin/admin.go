// Package admin is how an owner administers a stage: accounts and their
// countries, API keys, operators, webhook endpoints, deliveries, the audit
// trail and its locked copies, checks' evidence and enrolment links to the
// console. Each command is a JSON document, {"command": "key.create",
// "actor": "ops@example.com", "account_id": 1, ...}; the answer is a JSON
// document or a named refusal (InvalidRequest, NotFound, Forbidden,
// Conflict). The admin function serves it over the Lambda Invoke API, and
// the local commands call the same Handler in-process, so this package is
// the one place the logic lives.
//
// Every change writes an audit record naming the actor and the request, in
// the same transaction as the change. Keys, secrets and sign-in links appear
// in clear only in the answer that creates them, never in a log or a table.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/strictjson"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/verify"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// Store is what the commands read and write.
type Store interface {
	subscriptions.Store
	delivery.ViewStore
	delivery.TestStore
	portal.Store
	passkey.Store
	// not_found: no such account.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// No codes.
	ListAccounts(ctx context.Context) ([]domain.Account, error)
	// validation_failed on name: blank; domain.ErrDuplicateAction if the
	// action id opened an account before.
	OpenAccount(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit *domain.AuditRecord) (domain.Account, error)
	// not_found: the action opened no account.
	AccountOpenedBy(ctx context.Context, actionID string) (int64, error)
	// not_found: no such account; domain.ErrDuplicateAction if the action id
	// was applied before.
	UpdateAccount(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit domain.AuditRecord) error
	// No codes.
	CountryConfigs(ctx context.Context, accountID int64) ([]domain.CountryConfig, error)
	// not_found: no such account; domain.ErrDuplicateAction if the action id
	// was applied before.
	IssueAPIKey(ctx context.Context, k domain.APIKey, audit domain.AuditRecord) error
	// No codes.
	APIKeys(ctx context.Context, accountID int64) ([]domain.APIKey, error)
	// not_found: no such key in the account.
	APIKey(ctx context.Context, accountID int64, id string) (domain.APIKey, error)
	// conflict: the key is revoked already; domain.ErrDuplicateAction if the
	// action id was applied before.
	RevokeKey(ctx context.Context, k domain.APIKey, at time.Time, audit domain.AuditRecord) error
	// conflict: the old key is revoked already; domain.ErrDuplicateAction if
	// the action id was applied before.
	RotateKey(ctx context.Context, old domain.APIKey, oldEnds time.Time, next domain.APIKey, audit domain.AuditRecord) error
	// not_found: no such account; validation_failed on name or permissions;
	// domain.ErrDuplicateAction if the action id was applied before.
	AddOperator(ctx context.Context, op domain.Operator, audit domain.AuditRecord) (domain.Operator, error)
	// conflict: it changed since read; validation_failed on name or
	// permissions; domain.ErrDuplicateAction if the action id was applied before.
	UpdateOperator(ctx context.Context, op domain.Operator, audit domain.AuditRecord) error
	// No codes.
	Operators(ctx context.Context, accountID int64) ([]domain.Operator, error)
	// No codes.
	AuditTrail(ctx context.Context, accountID, entityID int64) ([]domain.AuditRecord, error)
	// No codes.
	AccountAudit(ctx context.Context, accountID int64, limit int) ([]domain.AuditRecord, error)
	// not_found: no action with this id in the account.
	AuditRecord(ctx context.Context, accountID int64, actionID string) (domain.AuditRecord, error)
	// No codes. Entity 0 is the account's own chain.
	AuditChain(ctx context.Context, accountID, entityID int64) (auditchain.Chain, error)
	// not_found: nothing is kept for the check.
	Evidence(ctx context.Context, accountID, checkID int64) (domain.Evidence, error)
	// not_found: no such check in the account.
	Check(ctx context.Context, accountID, id int64) (domain.Check, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// not_found: no such review in the account.
	Review(ctx context.Context, accountID, id int64) (domain.Review, error)
	// No codes.
	EntityChecks(ctx context.Context, accountID, entityID int64, want int) ([]domain.Check, error)
	// conflict: held already; domain.ErrDuplicateAction if the action id
	// was applied before.
	PutLegalHold(ctx context.Context, h domain.LegalHold, audit domain.AuditRecord) error
	// not_found: not held; domain.ErrDuplicateAction if the action id was
	// applied before.
	DeleteLegalHold(ctx context.Context, accountID, entityID int64, audit domain.AuditRecord) error
	// No codes.
	LegalHolds(ctx context.Context, accountID int64) ([]domain.LegalHold, error)
	// No codes: every item of the entity held (or released, and dated
	// again if its relationship ended); how many changed.
	HoldEntity(ctx context.Context, ent domain.Entity, held bool, written ...string) (int, error)
}

// Handler runs admin commands.
type Handler struct {
	Store Store
	// Queue takes redeliveries and test events.
	Queue delivery.Sender
	// Allow lists the networks a plain-http or private endpoint URL may use
	// (none in AWS).
	Allow webhooks.AllowList
	// Clock stamps audit records and what the commands create (required).
	Clock domain.Clock
	// SettingsURL is the settings area's base URL (SETTINGS_BASE_URL), on
	// which portal.link builds its sign-in links; without it portal.link
	// fails and mints nothing.
	SettingsURL string
	// Passkeys is the relying party decisions are signed for: audit.verify
	// checks their signatures against it (none: every signature fails).
	Passkeys passkey.Config
	// Blobs reads the bodies of evidence kept outside its item (over
	// domain.MaxInlineEvidence); without it evidence.get fails on them.
	Blobs checks.BlobGetter
	// Records reads the records bucket: audit.verify and evidence.get
	// compare DynamoDB with the locked copies (none: not compared), and
	// legal holds are set on them.
	Records Records
	// Exporter runs the records' daily part for audit.export (none: it
	// fails).
	Exporter *auditexport.Exporter
}

// Records is the records bucket as admin uses it (records.S3, records.Dir):
// read back, and held.
type Records interface {
	verify.Reader
	SetLegalHold(ctx context.Context, key string, on bool) error
}

// MaxDocument bounds a command document (Lambda's own limit is 6 MB).
const MaxDocument = 64 << 10

// common are the fields every command takes.
type common struct {
	Command string `json:"command"`
	// Actor names who runs the command (an e-mail, a ticket, an IAM user):
	// the audit trail records it beside the request id.
	Actor string `json:"actor"`
	// ActionID names the change in the audit trail; the same id again
	// changes nothing. Default: the request id, so a retried invocation
	// applies once.
	ActionID string `json:"action_id,omitempty"`
}

// call is one command being run.
type call struct {
	common
	doc       json.RawMessage
	requestID string
	now       time.Time
}

// command runs one kind of command; change says whether it writes (and so
// audits).
type command struct {
	change bool
	run    func(h *Handler, ctx context.Context, c *call) (any, error)
}

// commands is the command table.
func commands() map[string]command {
	return map[string]command{
		"account.create":     {true, (*Handler).accountCreate},
		"account.list":       {false, (*Handler).accountList},
		"account.get":        {false, (*Handler).accountGet},
		"account.update":     {true, (*Handler).accountUpdate},
		"key.create":         {true, (*Handler).keyCreate},
		"key.list":           {false, (*Handler).keyList},
		"key.revoke":         {true, (*Handler).keyRevoke},
		"key.rotate":         {true, (*Handler).keyRotate},
		"operator.create":    {true, (*Handler).operatorCreate},
		"operator.list":      {false, (*Handler).operatorList},
		"operator.update":    {true, (*Handler).operatorUpdate},
		"operator.disable":   {true, (*Handler).operatorDisable},
		"endpoint.create":    {true, (*Handler).endpointCreate},
		"endpoint.list":      {false, (*Handler).endpointList},
		"endpoint.get":       {false, (*Handler).endpointGet},
		"endpoint.update":    {true, (*Handler).endpointUpdate},
		"endpoint.rotate":    {true, (*Handler).endpointRotate},
		"endpoint.delete":    {true, (*Handler).endpointDelete},
		"endpoint.test":      {true, (*Handler).endpointTest},
		"delivery.list":      {false, (*Handler).deliveryList},
		"delivery.get":       {false, (*Handler).deliveryGet},
		"delivery.redeliver": {true, (*Handler).deliveryRedeliver},
		"audit.list":         {false, (*Handler).auditList},
		"audit.verify":       {false, (*Handler).auditVerify},
		"audit.dossier":      {false, (*Handler).auditDossier},
		"audit.export":       {false, (*Handler).auditExport},
		"audit.extend":       {false, (*Handler).auditExtend},
		"evidence.get":       {false, (*Handler).evidenceGet},
		"legal_hold.set":     {true, (*Handler).legalHoldSet},
		"legal_hold.release": {true, (*Handler).legalHoldRelease},
		"legal_hold.list":    {false, (*Handler).legalHoldList},
		"portal.link":        {true, (*Handler).portalLink},
		"passkey.list":       {false, (*Handler).passkeyList},
		"passkey.revoke":     {true, (*Handler).passkeyRevoke},
	}
}

// Commands lists the command names, sorted.
func Commands() []string {
	var out []string
	for name := range commands() {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Changes reports whether the command changes something (and so takes an
// action_id naming the change).
func Changes(command string) bool { return commands()[command].change }

// Handle is the admin function's Lambda handler: it runs the command
// document and answers its result as JSON, or fails with a named error
// (errorType InvalidRequest, NotFound, Forbidden or Conflict) that the
// caller reads; a fault fails with its own type and is logged.
func (h *Handler) Handle(ctx context.Context, doc json.RawMessage) (json.RawMessage, error) {
	c := &call{doc: doc, now: h.Clock.Now()}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		c.requestID = lc.AwsRequestID
	}
	log := logging.From(ctx).With("request_id", c.requestID)
	out, err := h.handle(ctx, c)
	// Keys and secrets are in out, never logged: only the command's name,
	// the actor and the outcome are.
	log = log.With("command", logging.Bounded(c.Command), "actor", logging.Bounded(c.Actor), "action_id", logging.Bounded(c.ActionID))
	if err != nil {
		if name := domain.FailureName(err); name != "" {
			log.Info("admin command refused", "failure", name, "reason", domain.ErrorMessage(err), "fields", domain.ErrorFields(err))
			return nil, messages.InvokeResponse_Error{Type: name, Message: domain.Refusal(err)}
		}
		log.Error("admin command failed", "error", err.Error())
		return nil, fmt.Errorf("admin %s: %w", c.Command, err)
	}
	log.Info("admin command")
	return out, nil
}

func (h *Handler) handle(ctx context.Context, c *call) (json.RawMessage, error) {
	if len(c.doc) > MaxDocument {
		return nil, domain.Invalid("command", fmt.Sprintf("the document is over %d bytes", MaxDocument))
	}
	if err := c.readCommon(); err != nil {
		return nil, err
	}
	cmd, ok := commands()[c.Command]
	if !ok {
		if c.Command == "" {
			return nil, domain.Invalid("command", "is required; one of "+strings.Join(Commands(), ", "))
		}
		return nil, domain.Invalid("command", fmt.Sprintf("%s is not a command; one of %s", logging.Quoted(c.Command), strings.Join(Commands(), ", ")))
	}
	if err := freetext.Check("actor", c.Actor, freetext.Actor, true); err != nil {
		return nil, err
	}
	if !cmd.change && c.ActionID != "" && c.Command != "audit.dossier" {
		// A command that reads names no change; audit.dossier's action_id
		// is the decision it shows, a field of its own.
		return nil, domain.Invalid("action_id", strictjson.NotAField(c.Command, "")+": it changes nothing")
	}
	if cmd.change {
		if c.ActionID == "" {
			if c.requestID == "" {
				return nil, domain.Invalid("action_id", "is required when no request id names the change")
			}
			c.ActionID = "adm-" + c.requestID
		}
		if err := freetext.Check("action_id", c.ActionID, freetext.ActionID, true); err != nil {
			return nil, err
		}
	}
	out, err := cmd.run(h, ctx, c)
	if errors.Is(err, domain.ErrDuplicateAction) {
		return nil, domain.Errorf(domain.ECodeConflict, "Action id %s was applied already: use a new one for a new change.", c.ActionID)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// readCommon reads the fields every command takes, by their exact names,
// from a document read strictly (no key twice, valid UTF-8); the command's
// own decode then reads the whole document again, strictly, so the command
// run is the one named here.
func (c *call) readCommon() error {
	var top map[string]json.RawMessage
	if err := strictjson.Decode(c.doc, &top); err != nil {
		var e *strictjson.Error
		if errors.As(err, &e) && e.Kind == strictjson.Type && e.Path == "" {
			return domain.Invalid("command", "the document must be a JSON object such as {\"command\": \"account.list\", \"actor\": \"you@example.com\"}")
		}
		return c.refusal(err)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"command", &c.Command}, {"actor", &c.Actor}, {"action_id", &c.ActionID}} {
		name, dst := f.name, f.dst
		raw, ok := top[name]
		if !ok {
			// Named in another case, it would be missing here and taken
			// by encoding/json's reading: refused by its own name.
			for _, key := range slices.Sorted(maps.Keys(top)) {
				if strings.EqualFold(key, name) {
					return domain.Invalid(key, strictjson.NotAField("", name))
				}
			}
			continue
		}
		if err := strictjson.Decode(raw, dst); err != nil {
			return domain.Invalid(name, "must be a string")
		}
	}
	return nil
}

// decode reads the command's own fields into p (a struct embedding common),
// strictly: see strictjson.Decode; then holds every field tagged
// `text:"<kind>"` to freetext's rule for that kind, so that text is refused
// before the command reads anything. Every refusal names its field.
func decode(c *call, p any) error {
	if err := strictjson.Decode(c.doc, p); err != nil {
		return c.refusal(err)
	}
	return checkTexts(p)
}

// checkTexts applies freetext's rule to p's tagged string fields (blank is
// the command's to refuse where it must not be).
func checkTexts(p any) error {
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag := f.Tag.Get("text")
		if tag == "" {
			continue
		}
		kind, ok := freetext.Named(tag)
		if !ok {
			panic(fmt.Sprintf("admin: field %s: no text kind %q", f.Name, tag)) // a programming error, found by the hostile test
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if err := freetext.Check(name, fv.String(), kind, false); err != nil {
			return err
		}
	}
	return nil
}

// refusal is a document's strictjson refusal as a validation failure
// naming the field (the whole path: "countries[1].code").
func (c *call) refusal(err error) error {
	return strictjson.Doc{Of: c.Command, Whole: "command"}.Invalid(err)
}

// notFields refuses the fields given (true) that the command does not
// take, though its sibling commands decode them.
func notFields(c *call, given map[string]bool) error {
	var names []string
	for f, ok := range given {
		if ok {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	return domain.Invalid(names[0], strictjson.NotAField(c.Command, ""))
}

// account checks that the account exists: a command naming an account
// that does not is refused as NotFound before anything else.
func (h *Handler) account(ctx context.Context, id int64) (domain.Account, error) {
	if id <= 0 {
		return domain.Account{}, domain.Invalid("account_id", "is required: a positive account id")
	}
	a, err := h.Store.Account(ctx, id)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return a, domain.Errorf(domain.ECodeNotFound, "Account %d not found.", id)
	}
	return a, err
}

// accountOnly reads a command whose one field is account_id, and checks
// the account exists.
func (h *Handler) accountOnly(ctx context.Context, c *call) (int64, error) {
	var p struct {
		common
		AccountID int64 `json:"account_id" strict:"id"`
	}
	if err := decode(c, &p); err != nil {
		return 0, err
	}
	_, err := h.account(ctx, p.AccountID)
	return p.AccountID, err
}

// actor is who makes a change, for the endpoint and delivery services.
func (c *call) actor(accountID, operatorID int64) domain.Actor {
	return domain.Actor{AccountID: accountID, OperatorID: operatorID, Admin: c.Actor, ActionID: c.ActionID, RequestID: c.requestID}
}

// audit is the record of an administrator's change.
func (c *call) audit(accountID int64, action domain.Action, before, after map[string]any) domain.AuditRecord {
	return domain.AuditRecord{AccountID: accountID, ActionID: c.ActionID, Action: action, OperatorName: c.Actor,
		Actor: c.Actor, RequestID: c.requestID, Before: before, After: after, At: c.now}
}

func (h *Handler) endpoints() *subscriptions.Service {
	return &subscriptions.Service{Store: h.Store, Allow: h.Allow, Clock: h.Clock}
}

func (h *Handler) deliveries() *delivery.Redeliverer {
	return &delivery.Redeliverer{Store: h.Store, Queue: h.Queue, Clock: h.Clock}
}

func (h *Handler) tester() *delivery.Tester {
	return &delivery.Tester{Store: h.Store, Queue: h.Queue, Clock: h.Clock}
}
