// Command local runs the whole service on one machine, with no AWS account:
// DynamoDB Local and ElasticMQ (started by local/stack/stack.sh when not
// running), the tables, demo data, and a gateway that plays API Gateway in
// front of the functions' own Lambda handlers. It also carries the operator
// commands that manage accounts and keys against the same store.
//
// Results go to stdout, logs to stderr, so the commands compose in scripts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	endWithParent()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			writeUsageError(os.Stderr, os.Args[1:], err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// errHelp is a command's -h (or -help, --help) among its flags: run prints
// the command's usage lines and succeeds.
var errHelp = errors.New("help requested")

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"no command"}
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 {
		sub = rest[0]
	}
	switch {
	case isHelp(cmd):
		return cmdHelp(rest)
	case usageOf(cmd) != "" && isHelp(sub):
		fmt.Print(usageOf(cmd))
		return nil
	}
	err := dispatch(ctx, cmd, sub, rest)
	if errors.Is(err, errHelp) { // COMMAND … -h: that command's lines
		fmt.Print(usageOf(cmd))
		return nil
	}
	return err
}

// subcommanded are the commands whose first argument names what they do.
var subcommanded = map[string]bool{"account": true, "key": true, "operator": true, "endpoint": true,
	"deliveries": true, "portal": true, "legal-hold": true, "passkey": true, "sim": true, "records": true, "tables": true}

// dispatch runs the command cmd (sub: its first argument, "" if none).
func dispatch(ctx context.Context, cmd, sub string, rest []string) error {
	if subcommanded[cmd] && sub != "" && !hasSubcommand(cmd, sub) {
		return usageError{fmt.Sprintf("unknown command %q", cmd+" "+sub)}
	}
	switch {
	case cmd == "up":
		return cmdUp(ctx, rest)
	case cmd == "account" && sub != "":
		return cmdAccount(ctx, sub, rest[1:])
	case cmd == "key" && sub != "":
		return cmdKey(ctx, sub, rest[1:])
	case cmd == "operator" && sub != "":
		return cmdOperator(ctx, sub, rest[1:])
	case cmd == "decide" && sub == "confirm":
		return cmdDecideConfirm(ctx, rest[1:])
	case cmd == "decide":
		return cmdDecide(ctx, rest)
	case cmd == "audit":
		return cmdAudit(ctx, rest)
	case cmd == "evidence":
		return cmdEvidence(ctx, rest)
	case cmd == "endpoint" && sub != "":
		return cmdEndpoint(ctx, sub, rest[1:])
	case cmd == "deliveries" && sub != "":
		return cmdDeliveries(ctx, sub, rest[1:])
	case cmd == "portal" && sub != "":
		return cmdPortal(ctx, sub, rest[1:])
	case cmd == "legal-hold" && sub != "":
		return cmdLegalHold(ctx, sub, rest[1:])
	case cmd == "records" && sub != "":
		return cmdRecords(ctx, sub, rest)
	case cmd == "tables" && sub != "":
		return cmdTables(ctx, sub, rest[1:])
	case cmd == "passkey" && sub != "":
		return cmdPasskey(ctx, sub, rest[1:])
	case cmd == "stage-api":
		return cmdStageAPI(ctx, rest)
	case cmd == "receiver":
		return cmdReceiver(ctx, rest)
	case cmd == "sim" && sub == "webhook":
		return cmdSimWebhook(ctx, rest[1:])
	}
	if usageOf(cmd) == "" {
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	if sub == "" {
		return usageError{cmd + ": a subcommand is required"}
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd+" "+sub)}
}

// isHelp reports whether arg asks for help: help, -h, -help or --help.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "-help" || arg == "--help"
}

// cmdHelp is help [COMMAND]: the whole usage, or COMMAND's lines.
func cmdHelp(args []string) error {
	switch {
	case len(args) == 0:
		fmt.Print(usage())
	case len(args) == 1 && usageOf(args[0]) != "":
		fmt.Print(usageOf(args[0]))
	default:
		return usageError{fmt.Sprintf("help: no command %q", strings.Join(args, " "))}
	}
	return nil
}

// parseFlags parses a command's flags, reporting mistakes as usage errors:
// among them an id, limit, count or duration flag (flags.go) given a value
// its rule refuses, such as --account 0 or --limit -1, named with the rule.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(new(discard))
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return errHelp
	} else if err != nil {
		return usageError{fmt.Sprintf("%s: %v", fs.Name(), err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return ruleError(fs)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
