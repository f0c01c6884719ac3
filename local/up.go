package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evs-kyb/evs/local/gateway"
	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/webhooks"
)

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
	e, err := openServer(ctx)
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
	// The banner is written at once, once the pollers were started (their
	// start-up logs mostly before it): no log line splits it.
	var b strings.Builder
	fmt.Fprintf(&b, "API:      %s\n", base)
	docsNote := ""
	if _, err := os.Stat(gw.DocsFile); err != nil {
		docsNote = " (not built yet: run make docs)"
	}
	fmt.Fprintf(&b, "Docs:     http://%s%s%s; the OpenAPI document: http://%s%s\n",
		ln.Addr().String(), gateway.DocsPath, docsNote, ln.Addr().String(), deploy.OpenAPIPath)
	fmt.Fprintf(&b, "Webhooks: http://%s/webhooks/opensanctions (secret %s)\n", ln.Addr().String(), localWebhookSecret())
	fmt.Fprintf(&b, "Providers simulated at %s: Wathq (the Saudi commercial register) and yente (OpenSanctions' screening);\n", simURL)
	fmt.Fprintf(&b, "          the outcome is set by the registration number's last digit\n")
	// The console and the settings area are served on localhost: passkeys
	// are bound to a domain, and go-webauthn refuses an IP address as one.
	consoleBase := "http://localhost:" + *port
	fmt.Fprintf(&b, "Settings: %s%s/ (signed in from the console, with a passkey)\n", consoleBase, deploy.SettingsPath)
	if demo != nil {
		if err := printDemo(ctx, &b, e, demo, base, consoleBase); err != nil {
			return err
		}
	}
	fmt.Fprintf(&b, "Events:   reviews stream -> review-events -> %s -> webhook-delivery (receivers allowed on %s)\n", flow.QueueURLs[deploy.QueueDeliveries], allow)
	fmt.Fprintln(&b, "          go run ./local receiver --port 4000 --secret <secret>   # after: go run ./local endpoint create --url http://127.0.0.1:4000/hook --events approved")
	fmt.Fprintf(&b, "Records:  audit and evidence streams -> audit-export -> %s (written once per key; go run ./local audit export)\n", devstack.RecordsDir())
	fmt.Fprintln(&b, "Supervising DynamoDB Local and ElasticMQ: one that stops answering is started again (local/stack/stack.sh start).")
	fmt.Fprintln(&b, "Serving; Ctrl-C stops the API (DynamoDB Local and ElasticMQ keep running: make stack-stop).")
	os.Stdout.WriteString(b.String())

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

func envDefault(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
