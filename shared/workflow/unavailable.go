package workflow

import (
	"context"
	"errors"
)

// ErrUnavailable: no decision workflow is configured where the console
// runs (a test's gateway, a command that serves no console).
var ErrUnavailable = errors.New("workflow: the decision workflow is not configured here")

// Unavailable is the Workflow of a console without one: every call fails
// with ErrUnavailable, so pages render and decisions are refused plainly.
type Unavailable struct{}

var _ Workflow = Unavailable{}

func (Unavailable) Start(context.Context, string, []byte) (string, error) { return "", ErrUnavailable }
func (Unavailable) ExecutionARN(name string) string                       { return "unavailable:" + name }
func (Unavailable) Describe(context.Context, string) (Execution, error) {
	return Execution{}, ErrUnavailable
}
func (Unavailable) Approve(context.Context, string, []byte) error { return ErrUnavailable }
func (Unavailable) Refuse(context.Context, string, string) error  { return ErrUnavailable }
