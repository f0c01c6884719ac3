package decisions

import (
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// Failure names, as the state machine and an operator in the console see
// them.
const (
	FailIllegalTransition = "IllegalTransition"
	FailForbidden         = "Forbidden"
	FailNotFound          = "NotFound"
	FailInvalid           = "InvalidRequest"
	FailConflict          = "Conflict"
	FailSecondApprover    = "SecondApproverRequired"
)

// Error is a refused action: a named failure and a sentence.
type Error struct {
	Name    string
	Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

func refuse(name, format string, args ...any) *Error {
	return &Error{Name: name, Message: fmt.Sprintf(format, args...)}
}

// FailureName is the failure name of err: an *Error's own, NotFound or
// InvalidRequest for the store's coded errors, "" for a fault.
func FailureName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Name
	}
	switch domain.ErrorCode(err) {
	case domain.ECodeNotFound:
		return FailNotFound
	case domain.ECodeInvalid:
		return FailInvalid
	}
	return ""
}
