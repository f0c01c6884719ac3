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
	FailForbidden         = domain.FailForbidden
	FailNotFound          = domain.FailNotFound
	FailInvalid           = domain.FailInvalid
	FailConflict          = domain.FailConflict
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

// FailureName is the failure name of err: an *Error's own, the domain's
// name for a coded error, "" for a fault.
func FailureName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Name
	}
	return domain.FailureName(err)
}
