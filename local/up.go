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
	"github.com/evs-kyb/evs/local/seed"
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
	// Before the gateway is built: its console serves this origin too.
	if err := rememberOrigin(servedOrigin(*port)); err != nil {
		return fmt.Errorf("record the console's origin: %w", err)
	}
	var (
		demo  *demoState
		known map[string]sim.Registration
	)
	if *seedMode == "demo" {
		if demo, err = ensureDemo(ctx, e, *entities); err != nil {
			return err
		}
		known = seed.RegisterBook(*entities)
	}
	simURL, stopSim, err := startSimulator(*simPort, known)
	if err != nil {
		return err
	}
	defer stopSim()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *port))
	if err != nil {
		return fmt.Errorf("listen on port %s: %w", *port, err)
	}
	gw, err := localGateway(ctx, e, simURL)
	if err != nil {
		return err
	}
	// The gateway's server carries its read, write and idle timeouts.
	srv := gw.Server()
	allow, err := localAllowList()
	if err != nil {
		return fmt.Errorf("WEBHOOK_ALLOWED_NETWORKS: %w", err)
	}
	flow, stopFlow, err := superviseFlow(ctx, e, allow)
	if err != nil {
		return err
	}
	defer stopFlow()
	banner := upBanner{addr: ln.Addr().String(), port: *port, simURL: simURL, docsFile: gw.DocsFile,
		demo: demo, deliveries: flow.QueueURLs[deploy.QueueDeliveries], allow: allow}
	text, err := banner.text(ctx, e)
	if err != nil {
		return err
	}
	os.Stdout.WriteString(text)
	return serveUntilDone(ctx, srv, ln)
}

// startSimulator serves the provider simulator on port, until stop; the
// register knows the businesses of known (the demo's) as they are.
func startSimulator(port string, known map[string]sim.Registration) (url string, stop func(), err error) {
	simLn, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return "", nil, fmt.Errorf("listen on port %s for the provider simulator: %w", port, err)
	}
	simSrv := &http.Server{Handler: &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(), Known: known}, ReadHeaderTimeout: 10 * time.Second}
	go simSrv.Serve(simLn)
	return "http://" + simLn.Addr().String(), func() { simSrv.Close() }, nil
}

// localGateway is the API gateway up serves, its functions calling the
// simulated providers and its decisions running through the local stage
// API's decision workflow.
func localGateway(ctx context.Context, e *env, simURL string) (*gateway.Gateway, error) {
	// A secret that does not parse would leave the webhook refusing
	// everything: say so now.
	if _, err := webhooks.ParseSecrets(localWebhookSecret()); err != nil {
		return nil, fmt.Errorf("EVS_WEBHOOK_SECRET: %w", err)
	}
	// The console's decisions run through the decision workflow, here the
	// local stand-in of Step Functions serving the real ASL.
	deps := simulatorProviders(simURL).deps(e.store, e.log)
	decide, err := boot.As[boot.DecisionHandler]("decision", deps)
	if err != nil {
		return nil, err
	}
	adm, err := localAdmin(e)
	if err != nil {
		return nil, err
	}
	stage := newStageAPI(ctx, adm, decide)
	if err := serveStageAPI(ctx, stage); err != nil {
		return nil, err
	}
	deps.Workflow = stageWorkflow{api: stage}
	gw, err := buildGateway(deps)
	if err != nil {
		return nil, err
	}
	if gw.DocsFile, err = docsFile(); err != nil {
		return nil, err
	}
	return gw, nil
}

// superviseFlow starts the review flow (streams, queues, pollers) under
// supervision, until stop.
func superviseFlow(ctx context.Context, e *env, allow webhooks.AllowList) (*reviewFlow, func(), error) {
	flow, err := newReviewFlow(ctx, e.store, e.names, e.log, flowOptions{QueuePrefix: tablePrefix(), Allow: allow, RecordsDir: devstack.RecordsDir()})
	if err != nil {
		return nil, nil, err
	}
	// Supervised: a server that stops answering is started again, and the
	// tables, queues and pollers are put back in order when it is back.
	sv := &supervision{
		Flow: flow, Names: e.names, QueuePrefix: tablePrefix(),
		DynamoDBEndpoint: devstack.DynamoDBEndpoint(), SQSEndpoint: devstack.SQSEndpoint(), YenteURL: stackYente(),
		Restart: stackRestart(e.log), Log: e.log,
	}
	return flow, sv.run(ctx), nil
}

// stackYente is the stack's screening engine, which up watches and starts
// again; "" when YENTE_URL names another (not the stack's to restart).
func stackYente() string {
	if os.Getenv("YENTE_URL") != "" {
		return ""
	}
	return devstack.YenteURL()
}

// upBanner says where up serves what.
type upBanner struct {
	addr, port, simURL, docsFile string
	demo                         *demoState
	deliveries                   string // the deliveries queue's URL
	allow                        webhooks.AllowList
}

// text is the banner, written at once once the pollers were started
// (their start-up logs mostly before it): no log line splits it.
func (u upBanner) text(ctx context.Context, e *env) (string, error) {
	base := "http://" + u.addr + "/api/v1"
	var b strings.Builder
	fmt.Fprintf(&b, "API:      %s\n", base)
	docsNote := ""
	if _, err := os.Stat(u.docsFile); err != nil {
		docsNote = " (not built yet: run make docs)"
	}
	fmt.Fprintf(&b, "Docs:     http://%s%s%s; the OpenAPI document: http://%s%s\n",
		u.addr, gateway.DocsPath, docsNote, u.addr, deploy.OpenAPIPath)
	fmt.Fprintf(&b, "Webhooks: http://%s/webhooks/opensanctions (secret %s)\n", u.addr, localWebhookSecret())
	fmt.Fprintf(&b, "Providers at %s: Wathq simulated (the register's answer set by the number's last digit: 1 a listed name),\n", u.simURL)
	fmt.Fprintf(&b, "          screening by the real engine, yente at %s, on the names it is sent\n", devstack.YenteURL())
	// The console and the settings area are served on localhost: passkeys
	// are bound to a domain, and go-webauthn refuses an IP address as one.
	consoleBase := "http://localhost:" + u.port
	if u.demo == nil {
		// With demo data, the demo's lines name the console with its
		// operator's enrolment link.
		fmt.Fprintf(&b, "Console:  %s%s/ — operators sign in with a passkey; an enrolment link enrols one: go run ./local portal link --operator ID\n",
			consoleBase, deploy.ConsolePath)
	}
	fmt.Fprintf(&b, "Settings: %s%s/ (signed in from the console, with a passkey)\n", consoleBase, deploy.SettingsPath)
	if u.demo != nil {
		if err := printDemo(ctx, &b, e, u.demo, base, consoleBase); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&b, "Events:   reviews stream -> review-events -> %s -> webhook-delivery (receivers allowed on %s)\n", u.deliveries, u.allow)
	fmt.Fprintln(&b, "          go run ./local receiver --port 4000 --secret <secret>   # after: go run ./local endpoint create --url http://127.0.0.1:4000/hook --events approved")
	fmt.Fprintf(&b, "Records:  audit and evidence streams -> audit-export -> %s (written once per key; go run ./local audit export)\n", devstack.RecordsDir())
	fmt.Fprintln(&b, "Supervising DynamoDB Local, ElasticMQ and the screening engine: one that stops answering is started again (local/stack/stack.sh start).")
	fmt.Fprintln(&b, "Serving; Ctrl-C stops the API (DynamoDB Local and ElasticMQ keep running: make stack-stop).")
	return b.String(), nil
}

// serveUntilDone serves on ln until the server fails or ctx ends, then
// shuts it down (5 s for the requests in flight).
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
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
