package main

import (
	"context"
	"strconv"
	"testing"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestDemoEvidenceEndToEnd: demo entities imported as make local seeds them
// keep their checks' answers: read back from the store, each body hashes to
// what its evidence and its check's result recorded, and the evidence
// command prints and verifies it (it answered NotFound before).
func TestDemoEvidenceEndToEnd(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	now := domain.Now()
	acct, err := st.CreateAccount(ctx, "Demo evidence", now)
	if err != nil {
		t.Fatal(err)
	}
	// The first 120 cover every kind of check (seed.Demo).
	out, err := st.ImportEntities(ctx, acct.ID, seed.Demo(now, 120))
	if err != nil {
		t.Fatal(err)
	}
	screening := func(status string) func(domain.Check) bool {
		return func(c domain.Check) bool {
			return c.Type == domain.CheckOrganizationScreening && c.Status == domain.CheckCompleted && c.Result["status"] == status
		}
	}
	tests := []struct {
		name string
		is   func(domain.Check) bool
	}{
		{"hit screening", screening("hit")},
		{"needs-review screening", screening("needs_review")},
		{"clear screening", screening("clear")},
		{"registry lookup", func(c domain.Check) bool {
			return c.Type == domain.CheckRegistryLookup && c.Status == domain.CheckCompleted
		}},
		{"failed with an answer", func(c domain.Check) bool {
			return c.Status == domain.CheckFailed && c.ProviderStatus != "timeout"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := firstCheck(out, tt.is)
			if !ok {
				t.Fatal("no such check in the demo's first 120 entities")
			}
			ev, err := st.Evidence(ctx, acct.ID, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			recorded := c.Result["evidence"].(map[string]any)
			if ok, got := ev.Verify(); !ok || got != recorded["sha256"] || ev.Size != recorded["size"] {
				t.Errorf("body hashes to %s, %d bytes (verified %v); the check's result recorded %v, %v", got, len(ev.Body), ok, recorded["sha256"], recorded["size"])
			}
			stdout, stderr, err := runCaptured(t, "evidence", "--check", strconv.FormatInt(c.ID, 10), "--account", strconv.FormatInt(acct.ID, 10))
			if err != nil || stdout != string(ev.Body) {
				t.Errorf("evidence command: %v\nstdout %q\nstderr %s", err, stdout, stderr)
			}
		})
	}
}

// firstCheck is the first check of the entities for which is holds.
func firstCheck(ds []domain.EntityDetail, is func(domain.Check) bool) (domain.Check, bool) {
	for _, d := range ds {
		for _, c := range d.Checks {
			if is(c) {
				return c, true
			}
		}
	}
	return domain.Check{}, false
}
