package domain

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Error codes. Each maps to one HTTP status in package api; the code itself is
// what API clients see in {"error": {"code": ...}}. The interfaces a package
// declares over storage name, per method, the codes it returns ("No codes":
// none); any other error is a fault, or one of the sentinels below.
const (
	ECodeUnauthorized     = "unauthorized"
	ECodeForbidden        = "forbidden"
	ECodeNotFound         = "not_found"
	ECodeMethodNotAllowed = "method_not_allowed"
	ECodeInvalid          = "validation_failed"
	ECodeConflict         = "conflict"
	ECodeInternal         = "internal_error"
	ECodeBadRequest       = "bad_request"
	ECodeUnsupportedMedia = "unsupported_media_type"
	ECodeTooLarge         = "payload_too_large"
	// ECodeUnavailable: the service could not finish in time (DynamoDB did
	// not answer); the caller retries after Retry-After.
	ECodeUnavailable = "service_unavailable"
	// ECodeGatewayTimeout: API Gateway (or the local gateway) stopped
	// waiting for the function at its integration timeout, 29 s.
	ECodeGatewayTimeout = "gateway_timeout"
	// ECodeIllegalTransition: the action is not allowed from the review's
	// or the entity's status as it stands.
	ECodeIllegalTransition = "illegal_transition"
	// ECodeSecondApproverRequired: the account requires four eyes and the
	// action came without a fit second approver.
	ECodeSecondApproverRequired = "second_approver_required"
	// ECodeStaleView: the decision named the dossier's ETag the operator
	// saw (seen), and the dossier has changed since.
	ECodeStaleView = "stale_view"
	// ECodeSignatureRequired: the decision (or its second approval) carries
	// no valid passkey signature where one is required: unsigned where the
	// account does not accept declared decisions, a four-eyes approval that
	// is not signed, or a signature that does not verify.
	ECodeSignatureRequired = "signature_required"
	// ECodeDecisionBlocked: the decision policy does not allow the action
	// on the entity as it stands (an open or confirmed screening match, no
	// risk assessment, a required check not completed); the message names
	// every blocker.
	ECodeDecisionBlocked = "decision_blocked"
)

// Error is an error the service means to show its caller: a code, a sentence,
// and for validation failures the messages per field.
type Error struct {
	Code    string
	Message string
	Fields  map[string][]string
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Code + ": " + e.Message
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := e.Code + ":"
	for _, k := range keys {
		s += fmt.Sprintf(" %s %v;", k, e.Fields[k])
	}
	return s
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a validation error for one field.
func Invalid(field string, messages ...string) *Error {
	return &Error{Code: ECodeInvalid, Message: "Validation failed.", Fields: map[string][]string{field: messages}}
}

// ErrorCode returns the code of the first *Error in err's chain, or
// ECodeInternal for anything else (which callers must not show).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return ECodeInternal
}

// ErrorMessage returns the caller-facing message of err: the *Error's own, or
// a generic sentence that leaks nothing for any other error.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}

// ErrorFields returns the per-field messages of a validation error.
func ErrorFields(err error) map[string][]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// Failure names: how a function invoked directly (the decision task, the
// admin function) names a refusal in its Lambda error, where Step Functions
// (the decision state machine's Catch clauses match them), the console and
// the command line read it. They are wire names: never rename one.
const (
	FailInvalid           = "InvalidRequest"
	FailNotFound          = "NotFound"
	FailForbidden         = "Forbidden"
	FailConflict          = "Conflict"
	FailIllegalTransition = "IllegalTransition"
	FailSecondApprover    = "SecondApproverRequired"
	FailStaleView         = "StaleView"
	FailSignatureRequired = "SignatureRequired"
	FailDecisionBlocked   = "DecisionBlocked"
)

// FailureName is the failure name of a coded error, or "" for a fault
// (which must not be shown as a refusal). It is the one table from codes to
// failure names, as api's statusOf is from codes to HTTP statuses.
func FailureName(err error) string {
	switch ErrorCode(err) {
	case ECodeInvalid, ECodeBadRequest, ECodeTooLarge, ECodeUnsupportedMedia:
		return FailInvalid
	case ECodeNotFound:
		return FailNotFound
	case ECodeForbidden, ECodeUnauthorized:
		return FailForbidden
	case ECodeConflict:
		return FailConflict
	case ECodeIllegalTransition:
		return FailIllegalTransition
	case ECodeSecondApproverRequired:
		return FailSecondApprover
	case ECodeStaleView:
		return FailStaleView
	case ECodeSignatureRequired:
		return FailSignatureRequired
	case ECodeDecisionBlocked:
		return FailDecisionBlocked
	}
	return ""
}

// Refusal is the sentence a named failure carries: the error's message, or
// for a validation failure its fields and their messages.
func Refusal(err error) string {
	fields := ErrorFields(err)
	if len(fields) == 0 {
		return ErrorMessage(err)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		parts = append(parts, k+" "+strings.Join(fields[k], "; "))
	}
	return strings.Join(parts, "; ")
}

// Outcomes of conditional writes, which callers turn into refusals of their
// own wording (a conflict, or the answer of the action applied before).
var (
	// ErrStale reports that a record changed between read and write: read
	// again.
	ErrStale = errors.New("record changed meanwhile")
	// ErrDuplicateAction reports that an action with the same id was
	// applied before: nothing was written again.
	ErrDuplicateAction = errors.New("action already applied")
)
