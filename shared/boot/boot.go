// Package boot builds, once per Lambda init, what every function needs: the
// logger, the AWS configuration, the store and the clients of its providers
// and queues (FromEnv), and its Lambda handler from one table keyed by the
// deployed function's name (Handler), which the local runner and the tests
// call too. It is the one place that wires the shared packages together.
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

	"github.com/evs-kyb/evs/shared/logging"
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

// Must stops the function's init on an error, logged as JSON: Lambda reports
// the failed init and retries it on the next invocation.
func Must[T any](v T, err error) T {
	if err != nil {
		slog.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	return v
}
