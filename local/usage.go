package main

import (
	"fmt"
	"io"
	"strings"
)

// The usage text, in one place: help prints it whole; a usage error prints
// its message and only its command's lines (usageFor), so that the line
// that matters stays on the screen.

const usageHead = `usage: go run ./local <command> [flags]

commands:
`

// commandUsage is every command's usage lines, found by the command's
// name (its first word), in the order help prints them.
var commandUsage = []struct{ name, lines string }{
	{"up", `  up [--seed demo|none] [--entities N] [--port P]   start the stack, create the tables, seed, serve the API
`},
	{"account", `  account create --name NAME --countries SA[,AE...] [--review-interval-days N] [--four-eyes A,..]
                 [--declared-decisions true|false] [--sla-days initial=5,periodic=10] [--extended-retention-years N]
                 [--ownership-threshold PERCENT]
                                                     print the new account id
  account list                                       print "<id>\t<name>" per account
  account get|update --id ID [--name N] [--countries SA,..] [--disable-countries AE,..] [--review-interval-days N] [--four-eyes A,..]
`},
	{"key", `  key create --account ID --permissions P[,P...] [--description D]   print a new API key (shown once)
  key list --account ID [--json|--table]             the account's keys, a line each (never the key itself)
  key revoke --account ID (--id key_… | --key KEY)   stop a key at once
  key rotate --account ID (--id key_… | --key KEY) [--overlap 24h]   print the successor; the old key works until the overlap ends
`},
	{"operator", `  operator create --account ID --name NAME --permissions P[,P...]   print the new operator id
  operator list --account ID [--json|--table] / operator update --id ID [--name N] [--permissions P,..] / operator disable --id ID
`},
	{"decide", `  decide ACTION --review ID --operator ID [--reason TEXT] [--assignee ID] [--level L] [--match ID --verdict V]
         [--website-url U] [--social-url U] [--summary S] [--second-approver ID] [--seen ETAG] [--action-id ID] [--workflow] [--wait 1m]
         [--party-op add|correct|end --party ID --party-kind K --party-name N --party-roles R,.. --party-shares N --party-identity-type T
          --party-identity-number N --party-nationality CC --party-birth-date D --party-source S --party-controls yes|no]
         ACTION: assign start escalate escalate-to-aml approve reject cancel queue-checks adjudicate-match assess-risk
                 update-profile open-periodic-review end-relationship record-party
  decide confirm --token T --operator ID [--refuse --reason R] --stage NAME   answer a four-eyes wait on a stage
`},
	{"audit", `  audit [--entity ID] [--account ID] [--limit N] [--json|--table]
                                                     the entity's (or the account's) audit trail, a line per record
  audit --verify [--entity ID] [--account ID]        check the entity's (or, without --entity, the account's own) audit
                                                     hash chain and its locked copies in the records bucket; print the
                                                     head's hash; fail naming the first broken record
  audit export [--account ID | --all]                the records' daily run now: lock what the streams have not, write the manifest
  audit extend [--account ID | --all]                once, after deploying per-object dates: each copy locked to its law's date
`},
	{"records", `  records verify [--dir DIR | --bucket NAME [--region R]] [--rp-id ID] [--origin O[,O...]]
                                                     a regulator's check of a copy of the records bucket alone: every
                                                     chain, decision, evidence body and manifest; per entity intact or
                                                     its first finding, each decision; non-zero exit on any finding
`},
	{"tables", `  tables export --dir DIR                             every table's items to DIR/<table>.json (DynamoDB's export format)
  tables import --dir DIR --prefix P                 create tables named P<table> and fill them from DIR: a restore's
                                                     rehearsal; then EVS_TABLE_PREFIX=P audit --verify reads them
`},
	{"evidence", `  evidence --check ID [--account ID]                 a check's provider answer as received (raw bytes on stdout),
                                                     its hash verified; non-zero exit naming a mismatch
`},
	{"endpoint", `  endpoint create --url URL --events E[,E...] [--account ID] [--operator ID] [--description D]
                                                     print "<id>\t<secret>" (the secret is shown this once)
  endpoint list [--json|--table] / endpoint get|delete --id ID / endpoint update --id ID [--url U] [--events E,..] [--active true|false]
  endpoint rotate --id ID [--overlap 24h]            print the new secret; the old one signs until the overlap ends
  endpoint test --id ID [--operator ID]              send the endpoint a signed test event (ping); print its delivery
`},
	{"deliveries", `  deliveries list [--endpoint ID] [--review ID] [--event E] [--status failed] [--from T] [--before T] [--operator ID]
                  [--json|--table]                   a line per attempt, newest first (T: RFC 3339; --before excluded)
  deliveries get --id ID / deliveries redeliver --id ID [--operator ID] [--reason TEXT]   a new attempt of a failed delivery, audited
`},
	{"portal", `  portal link --operator ID [--account ID]           print an enrolment link for the operator: the console's page
                                                     where they register a passkey (the first, or after losing them all;
                                                     single use, 15 minutes; a secret: hand it to that person alone)
`},
	{"legal-hold", `  legal-hold set|release --entity ID --reason TEXT [--account ID]
                                                     hold an entity's records past any expiry (its evidence keeps no
                                                     expiry, its locked copies an S3 legal hold), or release it; audited
  legal-hold list [--account ID] [--json|--table]    the account's holds, a line each
`},
	{"passkey", `  passkey list --operator ID [--account ID] [--json|--table]
                                                     the operator's passkeys, a line each (never a key)
  passkey revoke --operator ID --credential ID       revoke one (the last too: the operator enrols again by a new link)
`},
	{"receiver", `  receiver --port P --secret S [--secret S2] [--tolerance D]
                                                     listen on 127.0.0.1:P; print each verified webhook event as a JSON line
`},
	{"sim", `  sim webhook --reference REF --outcome clear|hit|needs_review [--url URL] [--id ID]
                                                     post a signed screening webhook, as the provider would
`},
	{"stage-api", `  stage-api [--port 4566]                            serve this machine's admin function and decision workflow over the
                                                     Lambda and Step Functions APIs, to try --stage with --endpoint-url
`},
	{"help", `  help [COMMAND]                                     this text, or COMMAND's lines alone (also -h, --help; COMMAND -h)
`},
}

const usageTail = `
Every command above but up, receiver, sim and stage-api also takes --stage NAME [--region R] [--profile P]
[--endpoint-url URL] [--actor WHO]: it then acts on the deployed stack evs-NAME through its admin function
(Lambda Invoke) or, for decide, its decision state machine. Without --stage it acts on the local store.

Ids (--account, --id, --operator, --review, --entity, --check, --endpoint, --assignee, --second-approver) must be
positive, --limit too; --review-interval-days, --entities, --overlap, --wait and --tolerance 0 or more. A flag given
otherwise is refused (exit 2) before anything is done; only a flag left out takes its default (the demo account).
A mistake on the command line prints its message and that command's lines alone; help prints this text.

Answers go to stdout, logs to stderr. At a terminal a command logs warnings and errors only, as text, and a list (key,
operator, endpoint, deliveries, legal-hold and passkey list; audit) is an aligned table of its main fields. Elsewhere (a
pipe, a file, CI) the logs are JSON lines from info up and a list is one JSON line per item, whole. up and
stage-api log from info up everywhere; the receiver's answer is the events it prints. LOG_LEVEL (debug, info, warn, error) sets the level; --json or --table chooses.

environment: PORT (3000), SIM_PORT (3100), EVS_WEBHOOK_SECRET, DYNAMODB_ENDPOINT (http://127.0.0.1:8000), EVS_TABLE_PREFIX (evs-local-), LOG_LEVEL (info; warn at a terminal),
SETTINGS_BASE_URL (http://localhost:$PORT: where portal link's links lead), EVS_RECORDS_DIR (the records bucket's stand-in), PASSKEY_RP_ID (localhost), PASSKEY_ORIGINS (http://localhost:$PORT)
`

// usage is the whole usage text, as help prints it.
func usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, c := range commandUsage {
		b.WriteString(c.lines)
	}
	b.WriteString(usageTail)
	return b.String()
}

// usageOf is the usage lines of the command named, "" for none.
func usageOf(name string) string {
	for _, c := range commandUsage {
		if c.name == name {
			return c.lines
		}
	}
	return ""
}

// commandNames are the commands' names, in help's order.
func commandNames() []string {
	var names []string
	for _, c := range commandUsage {
		names = append(names, c.name)
	}
	return names
}

// helpLine ends a usage error: where the rest is.
const helpLine = "run `go run ./local help` for every command\n"

// writeUsageError writes err, a usage error of the command line args, as
// main shows it: the message, then the usage lines of that command (the
// list of command names when there is no such command), then helpLine.
func writeUsageError(w io.Writer, args []string, err error) {
	fmt.Fprintf(w, "error: %v\n", err)
	lines := ""
	switch {
	case len(args) > 1 && isHelp(args[0]):
		lines = usageOf(args[1]) // help COMMAND: COMMAND's, if any
	case len(args) > 0:
		lines = usageOf(args[0])
	}
	if lines != "" {
		fmt.Fprintf(w, "usage:\n%s", lines)
	} else {
		fmt.Fprintf(w, "commands: %s\n", strings.Join(commandNames(), ", "))
	}
	fmt.Fprint(w, helpLine)
}

// hasSubcommand reports whether the usage lines of cmd show sub as its
// subcommand ("cmd sub …", "cmd a|sub …", also after a " / " on a line):
// a command whose subcommand is unknown is refused before any of its flags
// or defaults are looked at, so the answer is the same on every machine.
func hasSubcommand(cmd, sub string) bool {
	for _, line := range strings.Split(usageOf(cmd), "\n") {
		words := strings.Fields(line)
		for i := 0; i+1 < len(words); i++ {
			if words[i] != cmd || (i > 0 && words[i-1] != "/") {
				continue
			}
			for _, s := range strings.Split(words[i+1], "|") {
				if s == sub {
					return true
				}
			}
		}
	}
	return false
}
