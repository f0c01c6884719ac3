package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The usage text is one list of commands: each entry's lines are its
// command's alone, and the whole text is every entry between the head and
// the tail, documenting help, LOG_LEVEL and --json/--table.
func TestUsageEntries(t *testing.T) {
	full := usage()
	if !strings.HasPrefix(full, usageHead) || !strings.HasSuffix(full, usageTail) {
		t.Error("the usage text is not head, entries, tail")
	}
	seen := map[string]bool{}
	for _, c := range commandUsage {
		if seen[c.name] {
			t.Errorf("two entries for %s", c.name)
		}
		seen[c.name] = true
		if !strings.Contains(full, c.lines) || !strings.HasSuffix(c.lines, "\n") {
			t.Errorf("%s: its lines are not in the usage text, whole", c.name)
		}
		for _, line := range strings.Split(strings.TrimSuffix(c.lines, "\n"), "\n") {
			// A command's line, or the continuation of one (indented further).
			if !strings.HasPrefix(line, "  "+c.name+" ") && !strings.HasPrefix(line, "   ") {
				t.Errorf("%s's entry has a line of another command: %q", c.name, line)
			}
		}
	}
	for _, want := range []string{"LOG_LEVEL", "--json", "--table", "help [COMMAND]", "at a terminal"} {
		if !strings.Contains(full, want) {
			t.Errorf("the usage text does not mention %q", want)
		}
	}
	// Every command run dispatches has an entry: a usage error for it shows
	// its lines.
	for _, name := range []string{"up", "account", "key", "operator", "decide", "audit", "evidence", "endpoint", "deliveries",
		"portal", "legal-hold", "passkey", "receiver", "sim", "stage-api", "help"} {
		if usageOf(name) == "" {
			t.Errorf("no usage lines for %s", name)
		}
	}
}

// TestUsageErrors: a usage error shows its message, the lines of its
// command alone, and where the rest is; no command or an unknown one, the
// commands' names; exit code 2 is main's for a usageError.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		says    string
		command string // whose lines follow; "" for the names
	}{
		{[]string{"decide", "approve", "--review", "0"}, `error: decide approve: --review must be a positive id (given "0")`, "decide"},
		{[]string{"key", "revoke", "--account", "1"}, "error: key revoke: --id or --key is required", "key"},
		{[]string{"key", "frob"}, `error: unknown command "key frob"`, "key"},
		{[]string{"key"}, "error: key: a subcommand is required", "key"},
		{[]string{"audit", "export", "--bogus"}, "error: audit export: flag provided but not defined: -bogus", "audit"},
		{[]string{"sim"}, "error: sim: a subcommand is required", "sim"},
		{[]string{"frob", "x"}, `error: unknown command "frob"`, ""},
		{nil, "error: no command", ""},
		{[]string{"help", "frob"}, `error: help: no command "frob"`, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, _, err := runCaptured(t, tc.args...)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("%v, want a usage error", err)
			}
			if stdout != "" {
				t.Errorf("printed %q", stdout)
			}
			var buf bytes.Buffer
			writeUsageError(&buf, tc.args, err)
			want := tc.says + "\n"
			if tc.command != "" {
				want += "usage:\n" + usageOf(tc.command)
			} else {
				want += "commands: " + strings.Join(commandNames(), ", ") + "\n"
			}
			want += "run `go run ./local help` for every command\n"
			if buf.String() != want {
				t.Errorf("shows\n%s\nwant\n%s", buf.String(), want)
			}
			if n := strings.Count(buf.String(), "\n"); n > 10 {
				t.Errorf("%d lines", n)
			}
		})
	}
}

// Every subcommand a command dispatches is in its usage lines, so the
// unknown ones are refused up front (before a default such as the demo
// account is looked up) and the known ones reach their command.
func TestSubcommandsAreThoseOfTheUsage(t *testing.T) {
	known := map[string][]string{
		"account":    {"create", "list", "get", "update"},
		"key":        {"create", "list", "revoke", "rotate"},
		"operator":   {"create", "list", "update", "disable"},
		"endpoint":   {"create", "list", "get", "update", "rotate", "delete", "test"},
		"deliveries": {"list", "get", "redeliver"},
		"portal":     {"link"},
		"legal-hold": {"set", "release", "list"},
		"passkey":    {"list", "revoke"},
		"sim":        {"webhook"},
		"records":    {"verify"},
		"tables":     {"export", "import"},
	}
	for cmd := range subcommanded {
		if known[cmd] == nil {
			t.Errorf("%s: its subcommands are not listed here", cmd)
		}
	}
	for cmd, subs := range known {
		if !subcommanded[cmd] {
			t.Errorf("%s is not dispatched by subcommand", cmd)
		}
		for _, sub := range subs {
			if !hasSubcommand(cmd, sub) {
				t.Errorf("%s %s: not in its usage lines", cmd, sub)
			}
		}
		for _, sub := range []string{"frob", "--account", "ID", cmd} {
			if hasSubcommand(cmd, sub) {
				t.Errorf("%s %s: taken for a subcommand", cmd, sub)
			}
		}
	}
}

// help prints the whole text; help COMMAND, COMMAND -h and COMMAND SUB -h
// that command's lines, on stdout, successfully.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, usage()},
		{[]string{"-h"}, usage()},
		{[]string{"--help"}, usage()},
		{[]string{"help", "key"}, usageOf("key")},
		{[]string{"key", "-h"}, usageOf("key")},
		{[]string{"key", "list", "-h"}, usageOf("key")},
		{[]string{"decide", "approve", "--help"}, usageOf("decide")},
		{[]string{"audit", "-help"}, usageOf("audit")},
		{[]string{"receiver", "-h"}, usageOf("receiver")},
	} {
		stdout, stderr, err := runCaptured(t, tc.args...)
		if err != nil || stdout != tc.want || stderr != "" {
			t.Errorf("%v: %v, printed %q (stderr %q), want %q", tc.args, err, stdout, stderr, tc.want)
		}
	}
}
