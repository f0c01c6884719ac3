package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"syscall"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// statuses is the one table from error codes to HTTP statuses.
func statuses() map[string]int {
	return map[string]int{
		domain.ECodeUnauthorized:     http.StatusUnauthorized,
		domain.ECodeForbidden:        http.StatusForbidden,
		domain.ECodeNotFound:         http.StatusNotFound,
		domain.ECodeMethodNotAllowed: http.StatusMethodNotAllowed,
		domain.ECodeConflict:         http.StatusConflict,
		domain.ECodeInvalid:          http.StatusUnprocessableEntity,
		domain.ECodeInternal:         http.StatusInternalServerError,
		domain.ECodeBadRequest:       http.StatusBadRequest,
		domain.ECodeUnsupportedMedia: http.StatusUnsupportedMediaType,
		domain.ECodeTooLarge:         http.StatusRequestEntityTooLarge,
		domain.ECodeUnavailable:      http.StatusServiceUnavailable,
		domain.ECodeGatewayTimeout:   http.StatusGatewayTimeout,
		// Refusals of operator decisions: the request clashes with the state.
		domain.ECodeIllegalTransition:      http.StatusConflict,
		domain.ECodeSecondApproverRequired: http.StatusConflict,
		domain.ECodeSignatureRequired:      http.StatusForbidden,
		// The decision policy blocks the action on the entity as it stands.
		// The decision named a view of the dossier that is no longer current.
		domain.ECodeStaleView: http.StatusPreconditionFailed,
	}
}

// RetryAfterUnavailable is the Retry-After of a 503, in seconds.
const RetryAfterUnavailable = 5

// StatusOf returns the HTTP status for an error code.
func StatusOf(code string) int {
	if s, ok := statuses()[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is {"error": {"code": ..., "message": ...}}, the body of every
// error but validation failures.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ValidationBody is the contract's {"errors": {"<field>": ["<message>"]}}.
type ValidationBody struct {
	Errors map[string][]string `json:"errors"`
}

// writeError answers with err's status and body.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorResponse(r, err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
	}
	writeJSON(w, status, body)
}

// errorResponse is err's status and body. Anything that is not a
// *domain.Error is a fault: logged in full, shown as a bare internal error.
func errorResponse(r *http.Request, err error) (int, any) {
	if errors.Is(err, context.DeadlineExceeded) && domain.ErrorCode(err) == domain.ECodeInternal {
		// The request's deadline ran out waiting for a dependency: say so,
		// rather than hang until API Gateway gives up.
		logging.From(r.Context()).Error("request ran out of time", "method", logging.Bounded(r.Method), "path", logging.Bounded(r.URL.Path), "error", err.Error())
		err = domain.Errorf(domain.ECodeUnavailable, "The service could not answer in time; retry shortly.")
	}
	if unreachable(err) && domain.ErrorCode(err) == domain.ECodeInternal {
		// The database could not be reached at all (DynamoDB Local
		// restarting, a network fault): the request is fine and worth
		// retrying, so say so with a 503 and Retry-After, not a 500.
		logging.From(r.Context()).Error("dependency unreachable", "method", logging.Bounded(r.Method), "path", logging.Bounded(r.URL.Path), "error", err.Error())
		err = domain.Errorf(domain.ECodeUnavailable, "The service is briefly unavailable; retry shortly.")
	}
	code := domain.ErrorCode(err)
	status := StatusOf(code)
	log := logging.From(r.Context())
	if code == domain.ECodeInternal {
		log.Error("request failed", "method", logging.Bounded(r.Method), "path", logging.Bounded(r.URL.Path), "error", err.Error())
	} else {
		log.Info("request refused", "method", logging.Bounded(r.Method), "path", logging.Bounded(r.URL.Path), "status", status, "code", code)
	}
	if code == domain.ECodeInvalid {
		return status, ValidationBody{Errors: domain.ErrorFields(err)}
	}
	return status, ErrorBody{Error: ErrorDetail{Code: code, Message: domain.ErrorMessage(err)}}
}

// unreachableErrnos are the connection failures that mean "nobody answers
// there now", as opposed to a request the dependency refused.
func unreachableErrnos() []error {
	return []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EPIPE}
}

// unreachable reports whether err is a failure to reach a dependency over
// the network: a connection refused, reset or with no route, or any failed
// dial. The AWS SDK wraps these (with %w) in its operation errors, so they
// are found without importing it: shared/api knows no database client.
func unreachable(err error) bool {
	for _, errno := range unreachableErrnos() {
		if errors.Is(err, errno) {
			return true
		}
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeJSONBytes(w, status, marshalBody(v))
}

// marshalBody renders a response body.
func marshalBody(v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		// Our own views always marshal; this is a programming error.
		body = []byte(`{"error":{"code":"internal_error","message":"An internal error occurred."}}`)
	}
	return append(body, '\n')
}

func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
