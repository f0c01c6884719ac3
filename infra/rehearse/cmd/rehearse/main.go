// Command rehearse rehearses a deploy of the CDK app on moto's
// CloudFormation (package rehearse): make rehearse runs it after make
// build. Its folder of logs and cloud assemblies is removed when the
// rehearsal passes and kept, and named, when it fails.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/evs-kyb/evs/infra/rehearse"
	"github.com/evs-kyb/evs/infra/stack"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := stack.RepoRoot()
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "evs-rehearse-")
	if err != nil {
		fail(err)
	}
	if err := rehearse.Run(ctx, rehearse.Options{Root: root, WorkDir: work, Log: log}); err != nil {
		fail(fmt.Errorf("%w\n(its logs: %s)", err, work))
	}
	_ = os.RemoveAll(work)
	log.Info("deploy rehearsal passed")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rehearse:", err)
	os.Exit(1)
}
