package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// demoState is what `up` remembers between runs (git-ignored), so a second
// run reuses the demo account and key instead of seeding again.
type demoState struct {
	TablePrefix string `json:"table_prefix"`
	AccountID   int64  `json:"account_id"`
	Key         string `json:"key"`
	// OperatorID is the demo operator, who signs in to the settings area.
	OperatorID int64 `json:"operator_id"`
}

func cmdUp(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	seedMode := fs.String("seed", "demo", "demo or none")
	entities := countFlag(fs, "entities", 150, "number of demo entities")
	port := fs.String("port", envDefault("PORT", "3000"), "port to serve on (127.0.0.1)")
	simPort := fs.String("sim-port", envDefault("SIM_PORT", "3100"), "port of the provider simulator (127.0.0.1)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *seedMode != "demo" && *seedMode != "none" {
		return usageError{"up: --seed must be demo or none"}
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	var demo *demoState
	if *seedMode == "demo" {
		if demo, err = ensureDemo(ctx, e, *entities); err != nil {
			return err
		}
	}

	simLn, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *simPort))
	if err != nil {
		return fmt.Errorf("listen on port %s for the provider simulator: %w", *simPort, err)
	}
	simURL := "http://" + simLn.Addr().String()
	simSrv := &http.Server{Handler: &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey}, ReadHeaderTimeout: 10 * time.Second}
	go simSrv.Serve(simLn)
	defer simSrv.Close()

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *port))
	if err != nil {
		return fmt.Errorf("listen on port %s: %w", *port, err)
	}
	// A secret that does not parse would leave the webhook refusing
	// everything: say so now.
	if _, err := webhooks.ParseSecrets(localWebhookSecret()); err != nil {
		return fmt.Errorf("EVS_WEBHOOK_SECRET: %w", err)
	}
	// The console's decisions run through the decision workflow, here the
	// local stand-in of Step Functions serving the real ASL.
	deps := simulatorProviders(simURL).deps(e.store, e.log)
	decide, err := boot.As[boot.DecisionHandler]("decision", deps)
	if err != nil {
		return err
	}
	adm, err := localAdmin(e)
	if err != nil {
		return err
	}
	stage := newStageAPI(ctx, adm, decide)
	if err := serveStageAPI(ctx, stage); err != nil {
		return err
	}
	deps.Workflow = stageWorkflow{api: stage}
	gw, err := buildGateway(deps)
	if err != nil {
		return err
	}
	if gw.DocsFile, err = docsFile(); err != nil {
		return err
	}
	// The gateway's server carries its read, write and idle timeouts.
	srv := gw.Server()
	base := "http://" + ln.Addr().String() + "/api/v1"
	fmt.Printf("API:      %s\n", base)
	docsNote := ""
	if _, err := os.Stat(gw.DocsFile); err != nil {
		docsNote = " (not built yet: run make docs)"
	}
	fmt.Printf("Docs:     http://%s%s%s; the OpenAPI document: http://%s%s\n",
		ln.Addr().String(), gateway.DocsPath, docsNote, ln.Addr().String(), deploy.OpenAPIPath)
	fmt.Printf("Webhooks: http://%s/webhooks/opensanctions (secret %s)\n", ln.Addr().String(), localWebhookSecret())
	fmt.Printf("Providers simulated at %s (Wathq and yente; outcome by the registration number's last digit)\n", simURL)
	// The console and the settings area are served on localhost: passkeys
	// are bound to a domain, and go-webauthn refuses an IP address as one.
	consoleBase := "http://localhost:" + *port
	fmt.Printf("Settings: %s%s/ (signed in from the console, with a passkey)\n", consoleBase, deploy.SettingsPath)
	if demo != nil {
		enrol, err := enrolmentLink(ctx, e, demo, consoleBase)
		if err != nil {
			return err
		}
		fmt.Printf("Console:  %s%s/ — the Demo Operator (operator %d) enrols a passkey here, once, within 15 minutes:\n", consoleBase, deploy.ConsolePath, demo.OperatorID)
		fmt.Printf("          %s\n", enrol)
		fmt.Printf("          a new link: go run ./local portal link --operator %d\n", demo.OperatorID)
		fmt.Printf("Demo key: %s\n", demo.Key)
		fmt.Printf("Try:      curl -H 'Authorization: Bearer %s' '%s/entities?per_page=5'\n", demo.Key, base)
	}
	allow, err := localAllowList()
	if err != nil {
		return fmt.Errorf("WEBHOOK_ALLOWED_NETWORKS: %w", err)
	}
	flow, err := newReviewFlow(ctx, e.store, e.names, e.log, flowOptions{QueuePrefix: tablePrefix(), Allow: allow, RecordsDir: devstack.RecordsDir()})
	if err != nil {
		return err
	}
	// Supervised: a server that stops answering is started again, and the
	// tables, queues and pollers are put back in order when it is back.
	sv := &supervision{
		Flow: flow, Names: e.names, QueuePrefix: tablePrefix(),
		DynamoDBEndpoint: devstack.DynamoDBEndpoint(), SQSEndpoint: devstack.SQSEndpoint(),
		Restart: stackRestart(e.log), Log: e.log,
	}
	stopFlow := sv.run(ctx)
	defer stopFlow()
	fmt.Printf("Events:   reviews stream -> review-events -> %s -> webhook-delivery (receivers allowed on %s)\n", flow.QueueURLs[deploy.QueueDeliveries], allow)
	fmt.Println("          go run ./local receiver --port 4000 --secret <secret>   # after: go run ./local endpoint create --url http://127.0.0.1:4000/hook --events approved,assigned")
	fmt.Printf("Records:  audit and evidence streams -> audit-export -> %s (written once per key; go run ./local audit export)\n", devstack.RecordsDir())
	fmt.Println("Supervising DynamoDB Local and ElasticMQ: one that stops answering is started again (local/stack/stack.sh start).")
	fmt.Println("Serving; Ctrl-C stops the API (DynamoDB Local and ElasticMQ keep running: make stack-stop).")

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}

// ensureDemo reuses the demo account when its key still works against these
// tables, and otherwise creates it: an account with Saudi Arabia and the UAE
// enabled, the demo entities, and a key with every permission.
func ensureDemo(ctx context.Context, e *env, n int) (*demoState, error) {
	path, err := demoStatePath()
	if err != nil {
		return nil, err
	}
	if st, err := readDemoState(path); err == nil && st.TablePrefix == tablePrefix() {
		p, err := (&auth.Authorizer{Keys: e.store, Clock: domain.SystemClock}).Authenticate(ctx, "Bearer "+st.Key)
		if err == nil && p.AccountID == st.AccountID {
			e.log.Info("reusing demo account", "account_id", st.AccountID)
			if st.OperatorID == 0 { // a state written before the settings area
				if st.OperatorID, err = demoOperator(ctx, e, st.AccountID); err != nil {
					return nil, err
				}
				return st, writeDemoState(path, st)
			}
			return st, nil
		}
	}
	acct, err := createAccount(ctx, e, "Demo Merchants", []string{"SA", "AE"})
	if err != nil {
		return nil, err
	}
	// The demo accepts declared decisions, so `go run ./local decide` works
	// as written; a real account signs every decision in the console.
	if err := e.store.PutAccountSettings(ctx, acct.ID, domain.AccountSettings{DeclaredDecisions: true}); err != nil {
		return nil, fmt.Errorf("demo account settings: %w", err)
	}
	start := time.Now()
	if _, err := e.store.ImportEntities(ctx, acct.ID, seed.Demo(domain.Now(), n)); err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	e.log.Info("demo data seeded", "account_id", acct.ID, "entities", n, "ms", time.Since(start).Milliseconds())
	key, err := createKey(ctx, e, acct.ID, domain.APIKeyPermissions())
	if err != nil {
		return nil, err
	}
	op, err := demoOperator(ctx, e, acct.ID)
	if err != nil {
		return nil, err
	}
	st := &demoState{TablePrefix: tablePrefix(), AccountID: acct.ID, Key: key, OperatorID: op}
	if err := writeDemoState(path, st); err != nil {
		return nil, err
	}
	return st, nil
}

// demoOperator adds the demo account's operator, with every permission.
func demoOperator(ctx context.Context, e *env, accountID int64) (int64, error) {
	op, err := e.store.CreateOperator(ctx, accountID, "Demo Operator", domain.OperatorPermissions(), domain.Now())
	if err != nil {
		return 0, fmt.Errorf("demo operator: %w", err)
	}
	return op.ID, nil
}

// enrolmentLink mints the Demo Operator's enrolment link to the console,
// as an administrator's portal.link does: their first passkey is
// registered there.
func enrolmentLink(ctx context.Context, e *env, demo *demoState, base string) (string, error) {
	p := &portal.Service{Store: e.store, Clock: domain.SystemClock}
	l, err := p.Mint(ctx, domain.Actor{AccountID: demo.AccountID, Admin: "make local", ActionID: "up-console-" + randomID()}, demo.OperatorID)
	if err != nil {
		return "", fmt.Errorf("console enrolment link: %w", err)
	}
	return portal.LinkURL(base, l.Token)
}

// docsHTML is the API reference make docs builds (the Makefile's
// DOCS_HTML), from the repository root; up serves it at /docs/.
const docsHTML = "build/docs/index.html"

func docsFile() (string, error) {
	root, err := devstack.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(docsHTML)), nil
}

func demoStatePath() (string, error) {
	root, err := devstack.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".local", "demo.json"), nil
}

func readDemoState(path string) (*demoState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st demoState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	if st.Key == "" || st.AccountID == 0 {
		return nil, errors.New("incomplete demo state")
	}
	return &st, nil
}

func writeDemoState(path string, st *demoState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	// The key is a secret: readable by its owner only.
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

func envDefault(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
