package pipeline

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/logging"
)

// FunctionARN is the ARN a local function named name answers to: the local
// stack's region and account. It only labels invocations and failure records.
func FunctionARN(name string) string {
	return "arn:aws:lambda:" + devstack.Region + ":000000000000:function:" + name
}

// invoke calls handler as Lambda would: with a fresh request id in the
// context (lambdacontext and the logger logging.From finds), and a panic
// turned into the function error it is in Lambda.
func invoke[E, R any](ctx context.Context, log *slog.Logger, functionARN string, handler func(context.Context, E) (R, error), ev E) (resp R, requestID string, err error) {
	requestID = newRequestID()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: requestID, InvokedFunctionArn: functionARN})
	ctx = logging.WithLogger(ctx, log.With("aws_request_id", requestID))
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("handler panicked: %v", v)
		}
	}()
	resp, err = handler(ctx, ev)
	return resp, requestID, err
}

// newRequestID is a random UUID (version 4), the form of Lambda's request ids.
func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Sleep waits d, or less when ctx ends; it reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
