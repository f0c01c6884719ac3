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
	"syscall"
)

const usage = `usage: go run ./local <command> [flags]

commands:
  up [--seed demo|none] [--entities N] [--port P]   start the stack, create the tables, seed, serve the API
  account create --name NAME --countries SA[,AE...] [--review-interval-days N] [--four-eyes A,..]
                 [--declared-decisions true|false] [--sla-days initial=5,periodic=10] [--extended-retention-years N]
                                                     print the new account id
  account list                                       print "<id>\t<name>" per account
  account get|update --id ID [--name N] [--countries SA,..] [--disable-countries AE,..] [--review-interval-days N] [--four-eyes A,..]
  key create --account ID --permissions P[,P...] [--description D]   print a new API key (shown once)
  key list --account ID                              one JSON line per key (never the key itself)
  key revoke --account ID (--id key_… | --key KEY)   stop a key at once
  key rotate --account ID (--id key_… | --key KEY) [--overlap 24h]   print the successor; the old key works until the overlap ends
  operator create --account ID --name NAME --permissions P[,P...]   print the new operator id
  operator list --account ID / operator update --id ID [--name N] [--permissions P,..] / operator disable --id ID
  decide ACTION --review ID --operator ID [--reason TEXT] [--assignee ID] [--level L] [--match ID --verdict V]
         [--website-url U] [--social-url U] [--summary S] [--second-approver ID] [--seen ETAG] [--action-id ID] [--workflow] [--wait 1m]
                                                     ACTION: assign start escalate escalate-to-aml approve reject cancel
                                                     queue-checks adjudicate-match assess-risk update-profile open-periodic-review
  decide confirm --token T --operator ID [--refuse --reason R] --stage NAME   answer a four-eyes wait on a stage
  audit [--entity ID] [--account ID] [--limit N]     the entity's (or the account's) audit trail, one JSON line per record
  audit --verify [--entity ID] [--account ID]        check the entity's (or, without --entity, the account's own) audit
                                                     hash chain and its locked copies in the records bucket; print the
                                                     head's hash; fail naming the first broken record
  audit export [--account ID | --all]                the records' daily run now: lock every record the streams have not,
                                                     write the account's manifest; print what it did
  evidence --check ID [--account ID]                 a check's provider answer as received (raw bytes on stdout),
                                                     its hash verified; non-zero exit naming a mismatch
  endpoint create --url URL --events E[,E...] [--account ID] [--operator ID] [--description D]
                                                     print "<id>\t<secret>" (the secret is shown this once)
  endpoint list|get|delete [--id ID] / endpoint update --id ID [--url U] [--events E,..] [--active true|false]
  endpoint rotate --id ID [--overlap 24h]            print the new secret; the old one signs until the overlap ends
  endpoint test --id ID [--operator ID]              send the endpoint a signed test event (ping); print its delivery
  deliveries list [--endpoint ID] [--review ID] [--event E] [--status failed] [--from T] [--before T] [--operator ID]
                                                     one JSON line per attempt, newest first (T: RFC 3339; --before excluded)
  deliveries get --id ID / deliveries redeliver --id ID [--operator ID] [--reason TEXT]   a new attempt of a failed delivery, audited
  portal link --operator ID [--account ID]           print an enrolment link for the operator: the console's page
                                                     where they register a passkey (the first, or after losing them all;
                                                     single use, 15 minutes; a secret: hand it to that person alone)
  legal-hold set|release --entity ID --reason TEXT [--account ID]
                                                     hold an entity's records past any expiry (its evidence keeps no
                                                     expiry, its locked copies an S3 legal hold), or release it; audited
  legal-hold list [--account ID]                     the account's holds, one JSON line each
  passkey list --operator ID [--account ID]          the operator's passkeys, one JSON line each (never a key)
  passkey revoke --operator ID --credential ID       revoke one (the last too: the operator enrols again by a new link)
  receiver --port P --secret S [--secret S2] [--tolerance D]
                                                     listen on 127.0.0.1:P; print each verified webhook event as a JSON line
  sim webhook --reference REF --outcome clear|hit|needs_review [--url URL] [--id ID]
                                                     post a signed screening webhook, as the provider would
  stage-api [--port 4566]                            serve this machine's admin function and decision workflow over the
                                                     Lambda and Step Functions APIs, to try --stage with --endpoint-url

Every command above but up, receiver, sim and stage-api also takes --stage NAME [--region R] [--profile P]
[--endpoint-url URL] [--actor WHO]: it then acts on the deployed stack evs-NAME through its admin function
(Lambda Invoke) or, for decide, its decision state machine. Without --stage it acts on the local store.

Ids (--account, --id, --operator, --review, --entity, --check, --endpoint, --assignee, --second-approver) must be
positive, --limit too; --review-interval-days, --entities, --overlap, --wait and --tolerance 0 or more. A flag given
otherwise is refused (exit 2) before anything is done; only a flag left out takes its default (the demo account).

environment: PORT (3000), SIM_PORT (3100), EVS_WEBHOOK_SECRET, DYNAMODB_ENDPOINT (http://127.0.0.1:8000), EVS_TABLE_PREFIX (evs-local-), LOG_LEVEL (info),
SETTINGS_BASE_URL (http://localhost:$PORT: where portal link's links lead), EVS_RECORDS_DIR (the records bucket's stand-in), PASSKEY_RP_ID (localhost), PASSKEY_ORIGINS (http://localhost:$PORT)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "%v\n\n%s", err, usage)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

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
	case cmd == "passkey" && sub != "":
		return cmdPasskey(ctx, sub, rest[1:])
	case cmd == "stage-api":
		return cmdStageAPI(ctx, rest)
	case cmd == "receiver":
		return cmdReceiver(ctx, rest)
	case cmd == "sim" && sub == "webhook":
		return cmdSimWebhook(ctx, rest[1:])
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		fmt.Print(usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd+" "+sub)}
}

// parseFlags parses a command's flags, reporting mistakes as usage errors:
// among them an id, limit, count or duration flag (flags.go) given a value
// its rule refuses, such as --account 0 or --limit -1, named with the rule.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(new(discard))
	if err := fs.Parse(args); err != nil {
		return usageError{fmt.Sprintf("%s: %v", fs.Name(), err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return ruleError(fs)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
