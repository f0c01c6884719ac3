package devstack

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// DB returns a guregu/dynamo client for DynamoDB Local. Extra options (such as
// request-counting middleware) are applied to the SDK client.
func DB(opts ...func(*dynamodb.Options)) *dynamo.DB {
	endpoint := DynamoDBEndpoint()
	return dynamo.New(AWSConfig(), append([]func(*dynamodb.Options){store.ClientOptions, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, opts...)...)
}

// Tables starts the stack if needed, creates every table under a prefix of
// the test's own and drops them when the test ends.
func Tables(t testing.TB, db *dynamo.DB) schema.Names {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := Ensure(ctx); err != nil {
		t.Fatalf("local stack: %v", err)
	}
	names := schema.NamesWithPrefix(UniquePrefix(t.Name()))
	client := db.Client()
	if err := schema.Ensure(ctx, client, names); err != nil {
		t.Fatalf("create tables: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := schema.Drop(ctx, client, names); err != nil {
			t.Logf("drop tables: %v", err)
		}
	})
	return names
}

// Store returns a store over fresh tables of the test's own.
func Store(t testing.TB, opts ...func(*dynamodb.Options)) *store.Store {
	t.Helper()
	db := DB(opts...)
	return store.New(db, Tables(t, db))
}
