package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// env is what every command works with: the local store and a logger.
type env struct {
	store *store.Store
	names schema.Names
	log   *slog.Logger
}

// tablePrefix names the local tables, so several checkouts can share one
// DynamoDB Local.
func tablePrefix() string {
	if p := os.Getenv("EVS_TABLE_PREFIX"); p != "" {
		return p
	}
	return "evs-local-"
}

// open starts what is missing of the local stack and creates the tables,
// for a command that answers and exits: at a terminal it logs warnings and
// errors only (cliLogLevel).
func open(ctx context.Context) (*env, error) {
	return openLogging(ctx, cliLogger(os.Stderr, false))
}

// openServer is open for a server (up, stage-api), which logs from info up.
func openServer(ctx context.Context) (*env, error) {
	return openLogging(ctx, cliLogger(os.Stderr, true))
}

func openLogging(ctx context.Context, log *slog.Logger) (*env, error) {
	slog.SetDefault(log)
	if err := devstack.Ensure(ctx); err != nil {
		return nil, err
	}
	db := devstack.DB()
	names := schema.NamesWithPrefix(tablePrefix())
	if err := devstack.EnsureTables(ctx, db.Client(), names); err != nil {
		return nil, fmt.Errorf("create tables: %w", err)
	}
	return &env{store: store.New(db, names), names: names, log: log}, nil
}
