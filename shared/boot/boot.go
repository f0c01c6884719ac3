// Package boot builds, once per Lambda init, what every function needs: the
// logger, the AWS configuration and the store, from the environment.
package boot

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// Logger is the function's JSON logger, at LOG_LEVEL (info by default).
func Logger() *slog.Logger {
	l := logging.New(os.Stderr, os.Getenv("LOG_LEVEL"))
	slog.SetDefault(l)
	return l
}

// AWSConfig loads the default AWS configuration (the Lambda role's
// credentials and region).
func AWSConfig(ctx context.Context) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load aws config: %w", err)
	}
	return cfg, nil
}

// DynamoDB returns a client; DYNAMODB_ENDPOINT points it elsewhere (DynamoDB
// Local, under SAM or the local runner).
func DynamoDB(cfg aws.Config) *dynamo.DB {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	return dynamo.New(cfg, store.ClientOptions, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
}

// Store returns the store over the tables the function is granted
// (shared/deploy), named in its environment.
func Store(ctx context.Context, function string) (*store.Store, error) {
	cfg, err := AWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	return StoreWith(cfg, function)
}

// StoreWith is Store with an AWS configuration already loaded.
func StoreWith(cfg aws.Config, function string) (*store.Store, error) {
	f, ok := deploy.Lookup(function)
	if !ok {
		return nil, fmt.Errorf("boot: %q is not a function of shared/deploy", function)
	}
	names, err := schema.NamesFromEnv(os.Getenv, f.TableIDs()...)
	if err != nil {
		return nil, err
	}
	return store.New(DynamoDB(cfg), names), nil
}

// Must stops the function's init on an error, logged as JSON: Lambda reports
// the failed init and retries it on the next invocation.
func Must[T any](v T, err error) T {
	if err != nil {
		slog.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	return v
}
