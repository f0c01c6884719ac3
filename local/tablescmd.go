package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/tabledump"
)

// cmdTables is tables export and tables import: the local rehearsal of a
// restore (infra/README.md, restoring the tables), DynamoDB Local having no
// point-in-time recovery nor export: every table's items to a folder in
// DynamoDB's export format, and back into tables of another prefix.
func cmdTables(ctx context.Context, sub string, args []string) error {
	return runTables(ctx, sub, args, os.Stdout)
}

func runTables(ctx context.Context, sub string, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("tables "+sub, flag.ContinueOnError)
	dir := fs.String("dir", "", "the folder of the dump: <table id>.json per table, one {\"Item\": …} per line")
	prefix := fs.String("prefix", "", "import: the prefix of the tables to create and fill (an item of the dump replaces one of the same key)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{"tables " + sub + ": --dir is required"}
	}
	db := devstack.DB().Client()
	switch sub {
	case "export":
		if *prefix != "" {
			return usageError{"tables export: --prefix is the import's; the export reads the local system's tables"}
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return fmt.Errorf("tables export: %w", err)
		}
		return eachTable(schema.NamesWithPrefix(tablePrefix()), func(id, name string) error {
			f, err := os.Create(filepath.Join(*dir, id+".json"))
			if err != nil {
				return err
			}
			n, err := tabledump.Dump(ctx, db, name, f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			fmt.Fprintf(stdout, "%s: %d item(s)\n", name, n)
			return err
		})
	case "import":
		if *prefix == "" || *prefix == tablePrefix() {
			return usageError{"tables import: --prefix must name new tables, not the local system's"}
		}
		names := schema.NamesWithPrefix(*prefix)
		if err := devstack.EnsureTables(ctx, db, names); err != nil {
			return fmt.Errorf("tables import: %w", err)
		}
		return eachTable(names, func(id, name string) error {
			f, err := os.Open(filepath.Join(*dir, id+".json"))
			if err != nil {
				return err
			}
			defer f.Close()
			n, err := tabledump.Load(ctx, db, name, f)
			fmt.Fprintf(stdout, "%s: %d item(s)\n", name, n)
			return err
		})
	}
	return usageError{fmt.Sprintf("unknown command %q", "tables "+sub)}
}

// eachTable runs f for every table of the schema, by id and physical name.
func eachTable(names schema.Names, f func(id, name string) error) error {
	for _, t := range schema.Tables() {
		if err := f(t.ID, names[t.ID]); err != nil {
			return fmt.Errorf("tables: %s: %w", t.ID, err)
		}
	}
	return nil
}
