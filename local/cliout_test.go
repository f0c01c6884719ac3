package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestCLILogLevel: at a terminal a command logs warnings and errors only;
// a server, and anything whose logs are not a terminal's, from info up, as
// before; LOG_LEVEL, when it names a level, wins everywhere.
func TestCLILogLevel(t *testing.T) {
	for _, tc := range []struct {
		setting          string
		terminal, server bool
		want             string
	}{
		{"", true, false, "warn"},  // a command at a terminal: its answer alone
		{"", false, false, "info"}, // piped, CI, tests: as before
		{"", true, true, "info"},   // up at a terminal: its logs are watched
		{"", false, true, "info"},  // up piped
		{"debug", true, false, "debug"},
		{"info", true, false, "info"},
		{"error", false, false, "error"},
		{"WARN", false, true, "WARN"},
		{"loud", true, false, "warn"}, // not a level: the default
		{"loud", false, false, "info"},
	} {
		if got := cliLogLevel(tc.setting, tc.terminal, tc.server); got != tc.want {
			t.Errorf("cliLogLevel(%q, terminal %v, server %v) = %q, want %q", tc.setting, tc.terminal, tc.server, got, tc.want)
		}
	}
}

// A pipe and a file are no terminal: the tests' own stdout and stderr
// keep the old defaults.
func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, f := range []*os.File{r, w, f, null} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", f.Name())
		}
	}
	if isTerminalWriter(&bytes.Buffer{}) {
		t.Error("a buffer is taken for a terminal")
	}
}

func TestListFlags(t *testing.T) {
	for _, tc := range []struct {
		json, table, terminal, want bool
	}{
		{false, false, false, false}, // piped: JSON lines, as before
		{false, false, true, true},   // a terminal: a table
		{true, false, true, false},   // --json at a terminal
		{false, true, false, true},   // --table piped
	} {
		l := &listFlags{json: tc.json, table: tc.table}
		if got := l.asTable(tc.terminal); got != tc.want {
			t.Errorf("--json %v --table %v, terminal %v: table %v, want %v", tc.json, tc.table, tc.terminal, got, tc.want)
		}
	}
	var ue usageError
	if err := (&listFlags{json: true, table: true}).check("key list", true); !errors.As(err, &ue) || !strings.Contains(err.Error(), "exclude") {
		t.Errorf("--json --table: %v", err)
	}
	if err := (&listFlags{table: true}).check("key create", false); !errors.As(err, &ue) || !strings.Contains(err.Error(), "for lists") {
		t.Errorf("key create --table: %v", err)
	}
	if err := (&listFlags{table: true}).check("key list", true); err != nil {
		t.Errorf("key list --table: %v", err)
	}
}

type row struct {
	ID   int64   `json:"id"`
	Name string  `json:"name"`
	Note *string `json:"note"`
}

var rowColumns = []column[row]{
	{"ID", func(r row) string { return idCell(r.ID) }},
	{"NAME", func(r row) string { return short(r.Name) }},
	{"NOTE", func(r row) string { return optCell(r.Note) }},
}

// writeList: JSON lines exactly as printLine wrote them; a table with a
// heading, aligned columns, "-" for nothing, free text cut, and control
// characters escaped rather than sent to the terminal.
func TestWriteList(t *testing.T) {
	note := "a\tb\nc\x1b[31m\u202e"
	items := []row{
		{1, "Ann", nil},
		{1000000002, strings.Repeat("é", 50), &note},
		{3, "", new("")},
	}
	var js bytes.Buffer
	if err := writeList(&js, false, items, rowColumns); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, it := range items {
		b, _ := json.Marshal(it)
		want.Write(append(b, '\n'))
	}
	if js.String() != want.String() {
		t.Errorf("JSON lines:\n%s\nwant\n%s", js.String(), want.String())
	}

	var tb bytes.Buffer
	if err := writeList(&tb, true, items, rowColumns); err != nil {
		t.Fatal(err)
	}
	got := tb.String()
	wantTable := "ID          NAME                                       NOTE\n" +
		"1           Ann                                        -\n" +
		"1000000002  " + strings.Repeat("é", 40) + "…  a\\tb\\nc\\x1b[31m\\u202e\n" +
		"3           -                                          -\n"
	if got != wantTable {
		t.Errorf("table:\n%s\nwant\n%s", got, wantTable)
	}
	checkTable(t, got, "ID", "NAME", "NOTE")

	tb.Reset()
	if err := writeList(&tb, true, []row(nil), rowColumns); err != nil || tb.String() != "ID  NAME  NOTE\n" {
		t.Errorf("an empty table: %q, %v", tb.String(), err)
	}
}

// checkTable checks that out is a table with these headings, each row's
// cells starting under their heading.
func checkTable(t *testing.T, out string, heads ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	head := []rune(lines[0])
	var starts []int
	for i, h := range heads {
		at := strings.Index(lines[0], h)
		if at < 0 || (i > 0 && at <= starts[i-1]) {
			t.Fatalf("heading %q not in order in %q", h, lines[0])
		}
		starts = append(starts, len([]rune(lines[0][:at])))
	}
	if len(head) != starts[len(starts)-1]+len(heads[len(heads)-1]) {
		t.Errorf("heading line %q has more than %v", lines[0], heads)
	}
	for _, line := range lines[1:] {
		r := []rune(line)
		for i, s := range starts {
			if s >= len(r) || r[s] == ' ' || (i > 0 && r[s-1] != ' ') {
				t.Errorf("row %q: column %s does not start at %d", line, heads[i], s)
			}
		}
	}
}

// TestListCommandsTables runs list commands as a person and as a script
// would: --table prints an aligned table of the main fields, --json and
// the default through a pipe (these tests' stdout) one JSON line per item,
// as before; the logs through a pipe stay JSON from info up.
func TestListCommandsTables(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	t.Setenv("LOG_LEVEL", "")
	now := domain.Now()
	acct, err := st.CreateAccount(ctx, "Tables CLI", now)
	if err != nil {
		t.Fatal(err)
	}
	a := strconv.FormatInt(acct.ID, 10)
	if _, err := st.CreateOperator(ctx, acct.ID, "Dana Q", []string{domain.PermReviewDecide}, now); err != nil {
		t.Fatal(err)
	}
	for _, desc := range []string{"nightly reporting for the finance team's reconciliation jobs", ""} {
		if _, stderr, err := runCaptured(t, "key", "create", "--account", a, "--permissions", domain.PermEntityView, "--description", desc); err != nil {
			t.Fatalf("key create: %v (%s)", err, stderr)
		}
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	d := domain.Delivery{AccountID: acct.ID, ID: "dlv_tbl", Attempt: 1, EndpointID: 3, EventID: "evt_tbl",
		Event: domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: acct.ID}, Payload: []byte(`{}`), CreatedAt: at}
	if _, _, err := st.ClaimDelivery(ctx, d, at, time.Minute); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		args  []string
		heads []string
		rows  int
		has   []string // in the table
	}{
		{[]string{"key", "list", "--account", a}, []string{"ID", "PREFIX", "ACTIVE", "CREATED", "REVOKED", "PERMISSIONS", "DESCRIPTION"}, 2,
			[]string{"nightly reporting for the finance team's…", "entity.view", "yes"}},
		{[]string{"operator", "list", "--account", a}, []string{"ID", "NAME", "ACTIVE", "CREATED", "PERMISSIONS"}, 1,
			[]string{"Dana Q", domain.PermReviewDecide}},
		{[]string{"deliveries", "list", "--account", a}, []string{"CREATED", "ID", "ATTEMPT", "ENDPOINT", "EVENT", "REVIEW", "STATUS", "HTTP", "MS", "ERROR"}, 1,
			[]string{"dlv_tbl", "approved", "2026-11-01T10:00:00"}},
		{[]string{"audit", "--account", a}, []string{"AT", "ACTION", "BY", "HOW", "ENTITY", "REVIEW", "REASON", "ACTION ID"}, 2,
			[]string{"key.create", "cli:"}},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			table, stderr, err := runCaptured(t, append(tc.args, "--table")...)
			if err != nil {
				t.Fatalf("--table: %v (%s)", err, stderr)
			}
			if lines := strings.Count(table, "\n"); lines != tc.rows+1 {
				t.Errorf("--table printed %d lines, want a heading and %d rows:\n%s", lines, tc.rows, table)
			}
			checkTable(t, table, tc.heads...)
			for _, s := range tc.has {
				if !strings.Contains(table, s) {
					t.Errorf("--table: no %q in\n%s", s, table)
				}
			}
			t.Logf("%s --table:\n%s", strings.Join(tc.args[:2], " "), table)

			piped, stderr, err := runCaptured(t, tc.args...)
			if err != nil {
				t.Fatalf("%v (%s)", err, stderr)
			}
			asJSON, _, err := runCaptured(t, append(tc.args, "--json")...)
			if err != nil || asJSON != piped {
				t.Errorf("--json printed\n%s\n(%v), the default through a pipe\n%s", asJSON, err, piped)
			}
			lines := strings.Split(strings.TrimSpace(piped), "\n")
			if len(lines) != tc.rows {
				t.Errorf("%d JSON lines, want %d:\n%s", len(lines), tc.rows, piped)
			}
			for _, line := range lines {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Errorf("not a JSON line: %q", line)
				}
			}
			if !regexp.MustCompile(`(?m)^\{"time":"[^"]+","level":"INFO","msg":"admin command"`).MatchString(stderr) {
				t.Errorf("stderr through a pipe, LOG_LEVEL unset: %q, want JSON logs from info up", stderr)
			}
		})
	}

	// The key list's JSON line is the admin view, whole.
	stdout, _, err := runCaptured(t, "key", "list", "--account", a, "--json")
	var k admin.KeyView
	if err != nil || json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &k) != nil || k.AccountID != acct.ID {
		t.Errorf("key list --json: %v %q", err, stdout)
	}
	// Where no list is printed, the choice is refused before anything runs.
	for _, args := range [][]string{
		{"key", "create", "--account", a, "--permissions", domain.PermEntityView, "--table"},
		{"audit", "--verify", "--account", a, "--json"},
		{"operator", "list", "--account", a, "--json", "--table"},
	} {
		var ue usageError
		if stdout, _, err := runCaptured(t, args...); !errors.As(err, &ue) || stdout != "" {
			t.Errorf("%v: %v, printed %q; want a usage error", args, err, stdout)
		}
	}
}
