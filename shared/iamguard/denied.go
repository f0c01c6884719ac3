package iamguard

import (
	"errors"
	"fmt"

	"github.com/aws/smithy-go"
)

// Denied is a refusal as AWS answers it: an API error of code
// AccessDeniedException (AccessDenied for S3 and SQS) whose message names
// the principal, the action and the resource. It is a smithy.APIError, so
// the callers' error handling sees what it sees in AWS.
type Denied struct {
	Code, Function, Action, Resource, Principal string
	// Why is set when a grant names the action and resource but a
	// condition of it refused the request.
	Why string
}

var _ smithy.APIError = (*Denied)(nil)

func (d *Denied) Error() string { return "api error " + d.Code + ": " + d.ErrorMessage() }

// ErrorCode is AWS's error code.
func (d *Denied) ErrorCode() string { return d.Code }

// ErrorMessage is AWS's message, and the function's name, the catalogue
// entry to change.
func (d *Denied) ErrorMessage() string {
	because := "because no identity-based policy allows the " + d.Action + " action"
	if d.Why != "" {
		because = "because " + d.Why
	}
	return fmt.Sprintf("User: %s is not authorized to perform: %s on resource: %s %s (the %s function's grants in shared/deploy)",
		d.Principal, d.Action, d.Resource, because, d.Function)
}

// ErrorFault is the client's: retrying does not help.
func (d *Denied) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

// AsDenied finds a refusal in err's chain.
func AsDenied(err error) (*Denied, bool) {
	var d *Denied
	ok := errors.As(err, &d)
	return d, ok
}
