package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// TestRuledFlags: an id, limit, count or duration flag left out keeps its
// default (and is not given); given, it keeps its value when the value
// keeps the rule, and is a usage error naming the flag and the rule when
// not.
func TestRuledFlags(t *testing.T) {
	newFS := func() (*flag.FlagSet, *int64, *int, *int, *time.Duration) {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		return fs, idFlag(fs, "account", ""), limitFlag(fs, "limit", 100, ""), countFlag(fs, "days", 7, ""), durationFlag(fs, "wait", time.Minute, "")
	}
	fs, id, limit, days, wait := newFS()
	if err := parseFlags(fs, nil); err != nil || *id != 0 || *limit != 100 || *days != 7 || *wait != time.Minute {
		t.Fatalf("left out: %v; %d %d %d %v", err, *id, *limit, *days, *wait)
	}
	for _, name := range []string{"account", "limit", "days", "wait"} {
		if given(fs, name) {
			t.Errorf("%s given, though left out", name)
		}
	}
	fs, id, limit, days, wait = newFS()
	if err := parseFlags(fs, []string{"--account", "42", "--limit=1", "--days", "0", "--wait", "0s"}); err != nil || *id != 42 || *limit != 1 || *days != 0 || *wait != 0 {
		t.Fatalf("given: %v; %d %d %d %v", err, *id, *limit, *days, *wait)
	}
	if !given(fs, "days") || !given(fs, "wait") {
		t.Errorf("days and wait given as 0 are not seen as given")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--account", "0"}, `cmd: --account must be a positive id (given "0")`},
		{[]string{"--account", "-1"}, `cmd: --account must be a positive id (given "-1")`},
		{[]string{"--account=-9223372036854775808"}, `--account must be a positive id`},
		{[]string{"--account", ""}, `--account must be a positive id`},
		{[]string{"--account", "1e3"}, `--account must be a positive id`},
		{[]string{"--account", "99999999999999999999"}, `--account must be a positive id`},
		{[]string{"--account", "5", "--account", "-5"}, `--account must be a positive id (given "-5")`},
		{[]string{"--limit", "0"}, `cmd: --limit must be a positive number (given "0")`},
		{[]string{"--limit", "-1"}, `--limit must be a positive number`},
		{[]string{"--days", "-5"}, `cmd: --days must be 0 or more (given "-5")`},
		{[]string{"--wait", "-1s"}, `cmd: --wait must be a duration of 0s or more`},
		{[]string{"--wait", "5"}, `--wait must be a duration`},
		// Every flag's rule is checked, not just the first's.
		{[]string{"--account", "3", "--wait", "-1m"}, `--wait must be`},
	} {
		fs, _, _, _, _ := newFS()
		err := parseFlags(fs, tc.args)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
}

// flagCase is a command line whose flags all keep their rules, its id
// flags (each then given 0 and -1 in turn) and its other numeric flags
// with values they refuse.
type flagCase struct {
	args     []string
	ids      []string
	settings map[string][]string
}

// withFlag is args with --name set to value (replaced, or added).
func withFlag(args []string, name, value string) []string {
	out := slices.Clone(args)
	if i := slices.Index(out, "--"+name); i >= 0 && i+1 < len(out) {
		out[i+1] = value
		return out
	}
	return append(out, "--"+name, value)
}

// TestCommandsRefuseNonPositiveIDs runs every command that takes ids or
// numeric settings with each id flag given as 0 and as -1, and each
// setting given a negative value (a limit 0 too): each is a usage error
// naming the flag and the rule, and nothing is written anywhere (every
// table holds what it held). A write that goes through is counted, so the
// count would see one that slipped past.
func TestCommandsRefuseNonPositiveIDs(t *testing.T) {
	ctx := context.Background()
	st, names := cliStore(t)
	t.Setenv("LOG_LEVEL", "error")
	now := domain.Now()
	acct, err := st.CreateAccount(ctx, "Flags CLI", now)
	if err != nil {
		t.Fatal(err)
	}
	op, err := st.CreateOperator(ctx, acct.ID, "Ann", []string{domain.PermReviewDecide}, now)
	if err != nil {
		t.Fatal(err)
	}
	a, o := strconv.FormatInt(acct.ID, 10), strconv.FormatInt(op.ID, 10)
	// Ids of no record: every refusal comes before anything is read.
	const e, r, c, ep = "1000000001", "1000000002", "1000000003", "7"

	cases := []flagCase{
		{args: []string{"account", "get", "--id", a}, ids: []string{"id"}},
		{args: []string{"account", "update", "--id", a, "--name", "Renamed", "--review-interval-days", "30", "--extended-retention-years", "7"}, ids: []string{"id"},
			settings: map[string][]string{"review-interval-days": {"-1", "-5"}, "extended-retention-years": {"-1"}}},
		{args: []string{"account", "create", "--name", "New", "--countries", "SA", "--review-interval-days", "30", "--extended-retention-years", "7"},
			settings: map[string][]string{"review-interval-days": {"-5"}, "extended-retention-years": {"-1"}}},
		{args: []string{"key", "create", "--account", a, "--permissions", domain.PermEntityView}, ids: []string{"account"}},
		{args: []string{"key", "list", "--account", a}, ids: []string{"account"}},
		{args: []string{"key", "revoke", "--account", a, "--id", "key_x"}, ids: []string{"account"}},
		{args: []string{"key", "rotate", "--account", a, "--id", "key_x", "--overlap", "1h"}, ids: []string{"account"},
			settings: map[string][]string{"overlap": {"-1h", "-1s"}}},
		{args: []string{"operator", "create", "--account", a, "--name", "Bo", "--permissions", domain.PermReviewDecide}, ids: []string{"account"}},
		{args: []string{"operator", "list", "--account", a}, ids: []string{"account"}},
		{args: []string{"operator", "update", "--account", a, "--id", o, "--name", "Ann B"}, ids: []string{"account", "id"}},
		{args: []string{"operator", "disable", "--account", a, "--id", o}, ids: []string{"account", "id"}},
		{args: []string{"decide", "assign", "--review", r, "--operator", o, "--account", a, "--assignee", o, "--second-approver", o, "--wait", "1m"},
			ids: []string{"review", "operator", "account", "assignee", "second-approver"}, settings: map[string][]string{"wait": {"-1s"}}},
		{args: []string{"decide", "approve", "--review", r, "--operator", o, "--workflow", "--second-approver", o},
			ids: []string{"review", "operator", "second-approver"}},
		{args: []string{"decide", "confirm", "--token", "T", "--operator", o, "--stage", "test"}, ids: []string{"operator"}},
		{args: []string{"audit", "--entity", e, "--account", a, "--limit", "5"}, ids: []string{"entity", "account"},
			settings: map[string][]string{"limit": {"0", "-1"}}},
		{args: []string{"audit", "--verify", "--entity", e, "--account", a}, ids: []string{"entity", "account"}},
		{args: []string{"evidence", "--check", c, "--account", a}, ids: []string{"check", "account"}},
		{args: []string{"endpoint", "create", "--url", "https://hooks.example.com/evs", "--events", "approved", "--account", a, "--operator", o},
			ids: []string{"account", "operator"}},
		{args: []string{"endpoint", "list", "--account", a, "--operator", o}, ids: []string{"account", "operator"}},
		{args: []string{"endpoint", "get", "--id", ep, "--account", a, "--operator", o}, ids: []string{"id", "account", "operator"}},
		{args: []string{"endpoint", "update", "--id", ep, "--active", "false", "--account", a}, ids: []string{"id", "account"}},
		{args: []string{"endpoint", "delete", "--id", ep, "--account", a}, ids: []string{"id", "account"}},
		{args: []string{"endpoint", "test", "--id", ep, "--account", a, "--operator", o}, ids: []string{"id", "account", "operator"}},
		{args: []string{"endpoint", "rotate", "--id", ep, "--account", a, "--overlap", "1h"}, ids: []string{"id", "account"},
			settings: map[string][]string{"overlap": {"-1h"}}},
		{args: []string{"deliveries", "list", "--account", a, "--operator", o, "--endpoint", ep, "--review", r, "--limit", "5"},
			ids: []string{"account", "operator", "endpoint", "review"}, settings: map[string][]string{"limit": {"0", "-1"}}},
		{args: []string{"deliveries", "get", "--id", "dlv_x", "--account", a, "--operator", o}, ids: []string{"account", "operator"}},
		{args: []string{"deliveries", "redeliver", "--id", "dlv_x", "--account", a, "--operator", o}, ids: []string{"account", "operator"}},
		{args: []string{"portal", "link", "--account", a, "--operator", o}, ids: []string{"account", "operator"}},
		// Were these not refused, they would fail to listen on port 1, and
		// write nothing (no seeding).
		{args: []string{"up", "--seed", "none", "--port", "1", "--sim-port", "1", "--entities", "5"}, settings: map[string][]string{"entities": {"-1"}}},
		{args: []string{"receiver", "--port", "1", "--secret", "s", "--tolerance", "1m"}, settings: map[string][]string{"tolerance": {"-1s"}}},
	}

	before := tableCounts(t, st.DB(), names)
	lines := 0
	for _, fc := range cases {
		type bad struct{ flag, value, rule string }
		var bads []bad
		for _, id := range fc.ids {
			bads = append(bads, bad{id, "0", "a positive id"}, bad{id, "-1", "a positive id"})
		}
		for name, values := range fc.settings {
			for _, v := range values {
				bads = append(bads, bad{name, v, ""})
			}
		}
		lines += len(bads)
		for _, b := range bads {
			args := withFlag(fc.args, b.flag, b.value)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				stdout, _, err := runCaptured(t, args...)
				var ue usageError
				want := "--" + b.flag + " must be " + b.rule
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Quote(b.value)) {
					t.Errorf("%v, want a usage error saying %q", err, want)
				}
				if stdout != "" {
					t.Errorf("printed %q", stdout)
				}
			})
		}
	}
	if lines < 100 {
		t.Errorf("only %d command lines to refuse", lines)
	}
	if after := tableCounts(t, st.DB(), names); !maps.Equal(before, after) {
		t.Errorf("refused commands wrote: items per table %v, then %v", before, after)
	}

	// The same command lines with valid values go through: what is
	// written is counted, and 0 is a valid review interval (none).
	if _, stderr, err := runCaptured(t, "key", "create", "--account", a, "--permissions", domain.PermEntityView); err != nil {
		t.Fatalf("key create: %v (%s)", err, stderr)
	}
	if after := tableCounts(t, st.DB(), names); maps.Equal(before, after) {
		t.Errorf("key create wrote nothing the count sees")
	}
	stdout, stderr, err := runCaptured(t, "account", "update", "--id", a, "--review-interval-days", "0")
	var got struct {
		ReviewIntervalDays *int `json:"review_interval_days"`
	}
	if err != nil || json.Unmarshal([]byte(stdout), &got) != nil || got.ReviewIntervalDays == nil || *got.ReviewIntervalDays != 0 {
		t.Errorf("account update --review-interval-days 0: %v, %s (%s)", err, stdout, stderr)
	}
}

// TestAccountExtendedRetentionFlag: account create and update carry
// --extended-retention-years to the admin command, which keeps it and
// answers it; a value no rule allows (1 to 4, over 10) is its refusal
// naming the field, a negative one a usage error; both write nothing.
func TestAccountExtendedRetentionFlag(t *testing.T) {
	ctx := context.Background()
	st, names := cliStore(t)
	t.Setenv("LOG_LEVEL", "error")
	stdout, stderr, err := runCaptured(t, "account", "create", "--name", "Retains", "--countries", "SA", "--extended-retention-years", "7")
	id, perr := strconv.ParseInt(strings.TrimSpace(stdout), 10, 64)
	if err != nil || perr != nil {
		t.Fatalf("account create: %v %q (%s)", err, stdout, stderr)
	}
	if a, err := st.Account(ctx, id); err != nil || a.Settings.ExtendedRetentionYears != 7 {
		t.Fatalf("created %+v (%v), want extended retention 7", a.Settings, err)
	}
	acct := strconv.FormatInt(id, 10)
	for _, tc := range []struct {
		args  []string
		want  int    // the years stored after, and answered on success
		fails string // what the refusal says, "" for none
	}{
		{[]string{"account", "get", "--id", acct}, 7, ""},
		{[]string{"account", "update", "--id", acct, "--extended-retention-years", "10"}, 10, ""},
		{[]string{"account", "update", "--id", acct, "--name", "Retains more"}, 10, ""},
		{[]string{"account", "update", "--id", acct, "--extended-retention-years", "3"}, 10, "extended_retention_years must be 0"},
		{[]string{"account", "update", "--id", acct, "--extended-retention-years", "11"}, 10, "extended_retention_years must be from 0 to 10"},
		{[]string{"account", "update", "--id", acct, "--extended-retention-years", "-1"}, 10, `--extended-retention-years must be 0 or more (given "-1")`},
		{[]string{"account", "create", "--name", "Short", "--countries", "SA", "--extended-retention-years", "4"}, 10, "extended_retention_years must be 0"},
		{[]string{"account", "update", "--id", acct, "--extended-retention-years", "0"}, 0, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			before := tableCounts(t, st.DB(), names)
			stdout, stderr, err := runCaptured(t, tc.args...)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Errorf("%v, want a refusal saying %q", err, tc.fails)
				}
				if after := tableCounts(t, st.DB(), names); !maps.Equal(before, after) {
					t.Errorf("the refusal wrote: items per table %v, then %v", before, after)
				}
			} else {
				var got struct {
					ExtendedRetentionYears *int `json:"extended_retention_years"`
				}
				if err != nil || json.Unmarshal([]byte(stdout), &got) != nil || got.ExtendedRetentionYears == nil || *got.ExtendedRetentionYears != tc.want {
					t.Errorf("%v, %s (%s), want extended_retention_years %d", err, stdout, stderr, tc.want)
				}
			}
			if a, err := st.Account(ctx, id); err != nil || a.Settings.ExtendedRetentionYears != tc.want {
				t.Errorf("stored %+v (%v), want extended retention %d", a.Settings, err, tc.want)
			}
		})
	}
}

// tableCounts counts every table's items, read strongly.
func tableCounts(t *testing.T, db *dynamo.DB, names schema.Names) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for id, name := range names {
		n, err := db.Table(name).Scan().Consistent(true).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out[id] = int64(n)
	}
	return out
}

// fakeNode puts a node first on PATH that records it was started, and
// returns the file it writes.
func fakeNode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	script := "#!/bin/sh\necho \"$@\" > '" + marker + "'\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return marker
}

// TestDecideWorkflowRefusesBeforeTheRunner: decide … --workflow with a
// second approver (or any id) of 0 or less, or a negative --wait, is a
// usage error naming the flag, given before the workflow runner (node) is
// started or anything opened.
func TestDecideWorkflowRefusesBeforeTheRunner(t *testing.T) {
	marker := fakeNode(t)
	base := []string{"decide", "approve", "--review", "1000000002", "--operator", "3", "--workflow", "--second-approver", "4"}
	for _, tc := range []struct{ flag, value, says string }{
		{"second-approver", "-5", `--second-approver must be a positive id (given "-5")`},
		{"second-approver", "0", `--second-approver must be a positive id (given "0")`},
		{"second-approver", "--5", `--second-approver must be a positive id`},
		{"second-approver", "x", `--second-approver must be a positive id`},
		{"review", "-1", `--review must be a positive id`},
		{"operator", "0", `--operator must be a positive id`},
		{"account", "-2", `--account must be a positive id`},
		{"wait", "-1s", `--wait must be a duration of 0s or more`},
	} {
		args := withFlag(base, tc.flag, tc.value)
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			_, _, err := runCaptured(t, args...)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "decide approve: "+tc.says) {
				t.Errorf("%v, want a usage error saying %q", err, tc.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the workflow runner was started")
			}
		})
	}
}

// A request no state could make legal — a reason on start, a reason over
// its limit or with control characters, another action's field — is
// refused before the store is opened or the workflow runner started.
func TestDecideRefusesTheRequestBeforeTheRunner(t *testing.T) {
	marker := fakeNode(t)
	t.Setenv("DYNAMODB_ENDPOINT", "http://127.0.0.1:9") // nothing listens: a read would fail otherwise
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"decide", "start", "--review", "2", "--operator", "3", "--reason", "x", "--workflow"}, "reason is not taken by start"},
		{[]string{"decide", "approve", "--review", "2", "--operator", "3", "--reason", strings.Repeat("r", 100000), "--workflow"}, "longer than 1000 characters"},
		{[]string{"decide", "approve", "--review", "2", "--operator", "3", "--reason", "ok\x1b[31m", "--workflow"}, "control characters"},
		{[]string{"decide", "approve", "--review", "2", "--operator", "3", "--reason", "ok", "--level", "high"}, "risk_level is not a field of approve"},
	} {
		t.Run(tc.says, func(t *testing.T) {
			_, _, err := runCaptured(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), "InvalidRequest") || !strings.Contains(err.Error(), tc.says) || len(err.Error()) > 2000 {
				t.Errorf("%.300v, want InvalidRequest saying %q", err, tc.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the workflow runner was started")
			}
		})
	}
}

// TestRunnerArgs: what runExecution passes run.mjs is given inline
// (--name=value), so a value starting with '-' reaches it as a value; a
// approval answer that is not JSON is refused before node starts.
func TestRunnerArgs(t *testing.T) {
	args, err := runnerArgs(execution{LambdaEndpoint: "http://127.0.0.1:1", Name: "-x", Input: []byte(`{"a":1}`), Approval: []byte(`{"signature":{}}`)})
	want := []string{"--lambda-endpoint=http://127.0.0.1:1", "--name=-x", `--input={"a":1}`, `--approval={"signature":{}}`}
	if err != nil || !slices.Equal(args, want) {
		t.Errorf("runnerArgs = %q, %v; want %q", args, err, want)
	}
	if args, _ := runnerArgs(execution{LambdaEndpoint: "u", Name: "n", ApprovalEndpoint: "http://a", Approval: []byte(`{}`)}); !slices.Equal(args, []string{"--lambda-endpoint=u", "--name=n", "--approval-endpoint=http://a"}) {
		t.Errorf("with an approval endpoint: %q", args)
	}
	marker := fakeNode(t)
	if _, err := runExecution(context.Background(), execution{LambdaEndpoint: "u", Name: "n", Approval: []byte(`{"signature":`)}); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("an approval that is not JSON: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("node was started for an approval that is not JSON")
	}
}

// TestWorkflowRunsNamesStartingWithADash runs the real run.mjs on an
// execution whose name (the action id) starts with '-', with a second
// approver: it reads both and runs the state machine (refused at
// Validate), where a separate '-…' value used to stop it before it began.
func TestWorkflowRunsNamesStartingWithADash(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the decision workflow runs in aws-local-stepfunctions on Node.js 20 or later")
	}
	ctx := logging.WithLogger(context.Background(), quietLogger())
	st := devstacktest.Store(t)
	e := &env{store: st, log: quietLogger()}
	decide, err := decisionService(e, "")
	if err != nil {
		t.Fatal(err)
	}
	acct := mustAccount(t, e, "Dashes", "SA")
	res, err := runWorkflow(ctx, decide, decisions.Request{Action: domain.ActionApprove, AccountID: acct, ReviewID: domain.ScopedID(acct, 999),
		OperatorID: domain.ScopedID(acct, 1), ActionID: "-dash-first"}, json.RawMessage(`{"second_approver_id":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Execution != "-dash-first" || res.Status != "FAILED" || !slices.Contains(res.States, "Validate") {
		t.Errorf("result = %+v", res)
	}
}
