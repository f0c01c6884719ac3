package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/verify"
)

// The restore runbook (infra/README.md), rehearsed as far as DynamoDB
// Local allows: every table exported (tables export) at two points of an
// entity's trail, each export imported into new tables (tables import),
// and audit --verify run against them and the locked records. The tables
// of the later point are intact; those of the earlier point lack the
// records written after it, and audit --verify names each missing while
// its locked copy holds it, exiting non-zero.
func TestARestoreIsVerifiedAgainstTheLockedRecords(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	dir := t.TempDir()
	t.Setenv("EVS_RECORDS_DIR", dir)
	rec := records.Dir{Root: dir}
	e := &env{store: st, log: quietLogger()}
	created, err := createAccount(ctx, e, "Restores", []string{"SA"})
	if err != nil {
		t.Fatal(err)
	}
	acct := created.ID
	keys := &passkey.Service{Store: st, Clock: domain.SystemClock, Config: localPasskeys()}
	dana := wfSigner(t, keys, st, acct, "Dana Decider")
	decide, err := decisionService(e, "")
	if err != nil {
		t.Fatal(err)
	}
	review := wfReview(t, st, acct, "7000003701")
	r, err := st.Review(ctx, acct, review)
	if err != nil {
		t.Fatal(err)
	}
	entity := r.EntityID
	apply := func(action domain.Action, reason string) {
		t.Helper()
		req := decisions.Request{Action: action, AccountID: acct, EntityID: entity, ReviewID: review, OperatorID: dana.ID,
			ActionID: "restore-" + string(action), Reason: reason}
		a, err := dana.Sign(ctx, passkey.PurposeDecision, decisions.Digest(req))
		if err != nil {
			t.Fatal(err)
		}
		req.Signature = &a
		if _, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req})); err != nil {
			t.Fatalf("%s: %v", action, taskError(err))
		}
		lockChain(t, st, rec, acct, entity)
		lockChain(t, st, rec, acct, 0)
	}
	export := func(name string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), name)
		if stdout, stderr, err := runCaptured(t, "tables", "export", "--dir", out); err != nil {
			t.Fatalf("tables export: %v (%s)", err, stderr)
		} else if !strings.Contains(stdout, "item(s)") {
			t.Fatalf("tables export says %q", stdout)
		}
		return out
	}
	apply(domain.ActionStart, "")
	earlier := export("earlier")
	apply(domain.ActionEscalate, "needs_supervisor: ownership")
	later := export("later")

	verifyRestored := func(from string) (string, error) {
		t.Helper()
		prefix := devstack.UniquePrefix("restored")
		t.Cleanup(func() {
			_ = devstack.DropTables(context.Background(), devstack.DB().Client(), schema.NamesWithPrefix(prefix))
		})
		if _, stderr, err := runCaptured(t, "tables", "import", "--dir", from, "--prefix", prefix); err != nil {
			t.Fatalf("tables import: %v (%s)", err, stderr)
		}
		t.Setenv("EVS_TABLE_PREFIX", prefix)
		out, _, err := runCaptured(t, "audit", "--verify", "--account", strconv.FormatInt(acct, 10), "--entity", strconv.FormatInt(entity, 10))
		return out, err
	}
	if out, err := verifyRestored(later); err != nil || !verifyView(t, out).Intact {
		t.Fatalf("tables restored from the later export: %v\n%s", err, out)
	}
	out, err := verifyRestored(earlier)
	if err == nil {
		t.Fatalf("tables restored from before the last decision verify intact:\n%s", out)
	}
	var got []string
	for _, f := range verifyView(t, out).Locked.Findings {
		got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Seq))
	}
	if !slices.Contains(got, fmt.Sprintf("%s@%d", verify.FindingMissing, 2)) {
		t.Errorf("the decision after the restore point is not named missing: %v", got)
	}
}
