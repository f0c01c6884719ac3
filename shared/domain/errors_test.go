package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// The failure names are matched by the decision state machine's Catch
// clauses and read by the command line: they must not drift.
func TestFailureName(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"validation", domain.Invalid("x", "bad"), "InvalidRequest"},
		{"bad request", domain.Errorf(domain.ECodeBadRequest, "b"), "InvalidRequest"},
		{"too large", domain.Errorf(domain.ECodeTooLarge, "b"), "InvalidRequest"},
		{"unsupported media", domain.Errorf(domain.ECodeUnsupportedMedia, "b"), "InvalidRequest"},
		{"not found", domain.Errorf(domain.ECodeNotFound, "n"), "NotFound"},
		{"forbidden", domain.Errorf(domain.ECodeForbidden, "f"), "Forbidden"},
		{"unauthorized", domain.Errorf(domain.ECodeUnauthorized, "u"), "Forbidden"},
		{"conflict", domain.Errorf(domain.ECodeConflict, "c"), "Conflict"},
		{"illegal transition", domain.Errorf(domain.ECodeIllegalTransition, "i"), "IllegalTransition"},
		{"second approver", domain.Errorf(domain.ECodeSecondApproverRequired, "s"), "SecondApproverRequired"},
		{"stale view", domain.Errorf(domain.ECodeStaleView, "s"), "StaleView"},
		{"decision blocked", domain.Errorf(domain.ECodeDecisionBlocked, "b"), "DecisionBlocked"},
		{"wrapped", fmt.Errorf("apply: %w", domain.Errorf(domain.ECodeIllegalTransition, "i")), "IllegalTransition"},
		{"fault", errors.New("boom"), ""},
		{"unavailable is a fault", domain.Errorf(domain.ECodeUnavailable, "later"), ""},
		{"nil", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.FailureName(tt.err); got != tt.want {
				t.Errorf("FailureName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"message", domain.Errorf(domain.ECodeConflict, "review %d changed", 7), "review 7 changed"},
		{"fields, sorted", &domain.Error{Code: domain.ECodeInvalid, Message: "Validation failed.",
			Fields: map[string][]string{"url": {"blank", "not https"}, "events": {"empty"}}}, "events empty; url blank; not https"},
		{"fault leaks nothing", errors.New("dial tcp 10.0.0.1"), "An internal error occurred."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.Refusal(tt.err); got != tt.want {
				t.Errorf("Refusal = %q, want %q", got, tt.want)
			}
		})
	}
}
