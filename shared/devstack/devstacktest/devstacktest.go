// Package devstacktest gives integration tests DynamoDB tables of their own
// on the local stack (started if needed), dropped when the test ends. Under
// -short the tests that need them are skipped, so the fast suite runs without
// Java.
package devstacktest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// A test binary drops, as it starts, the variables that point at someone's
// own data or servers (devstack.PersonalVars: make local's folders, a
// DynamoDB elsewhere), and, unless ports are given, uses the test stack's
// (TestStackEnv, as make test does): a `go test` never writes into what a
// person keeps, nor into a running make local. Before any test runs, so a
// test's own t.Setenv stands.
func init() {
	for _, v := range devstack.PersonalVars() {
		os.Unsetenv(v)
	}
	if os.Getenv("DYNAMODB_PORT") != "" || os.Getenv("ELASTICMQ_PORT") != "" {
		return
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		return
	}
	for k, v := range TestStackEnv(root) {
		os.Setenv(k, v)
	}
}

// TestStackEnv is the test stack's place and ports, make test's TEST_ENV.
func TestStackEnv(root string) map[string]string {
	return map[string]string{"EVS_STACK_DIR": filepath.Join(root, ".local", "test-stack"),
		"DYNAMODB_PORT": "8200", "ELASTICMQ_PORT": "9524", "ELASTICMQ_STATS_PORT": "9525",
		"OPENSEARCH_PORT": "9220", "YENTE_PORT": "8785"}
}

// Stack skips the test under -short, else finds or starts the local stack
// (the screening engine too: devstack.Ensure).
func Stack(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs DynamoDB Local and ElasticMQ; skipped under -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := devstack.Ensure(ctx); err != nil {
		t.Fatalf("local stack: %v", err)
	}
}

// Tables starts the stack if needed, creates every table under a prefix of
// the test's own and drops them when the test ends.
func Tables(t testing.TB, db *dynamo.DB) schema.Names {
	t.Helper()
	Stack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	names := schema.NamesWithPrefix(devstack.UniquePrefix(t.Name()))
	client := db.Client()
	if err := devstack.EnsureTables(ctx, client, names); err != nil {
		t.Fatalf("create tables: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := devstack.DropTables(ctx, client, names); err != nil {
			t.Logf("drop tables: %v", err)
		}
	})
	return names
}

// Store returns a store over fresh tables of the test's own.
func Store(t testing.TB, opts ...func(*dynamodb.Options)) *store.Store {
	t.Helper()
	db := devstack.DB(opts...)
	return store.New(db, Tables(t, db))
}
