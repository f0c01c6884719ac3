package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
)

// adminTarget runs admin command documents and answers their JSON results,
// or a *refusal.
type adminTarget interface {
	Run(ctx context.Context, doc map[string]any) (json.RawMessage, error)
}

// inProcess runs the admin handler here, as the admin function runs it,
// with a request id of its own.
type inProcess struct{ handle boot.AdminHandler }

func (t inProcess) Run(ctx context.Context, doc map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "local-" + randomID()})
	out, err := t.handle(ctx, b)
	if ie, ok := err.(messages.InvokeResponse_Error); ok {
		return nil, &refusal{Name: ie.Type, Message: ie.Message}
	}
	return out, err
}

// onStage invokes the stage's admin function through the Lambda Invoke API.
type onStage struct {
	client   *lambda.Client
	function string
}

func (t onStage) Run(ctx context.Context, doc map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	out, err := t.client.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(t.function), Payload: b})
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", t.function, err)
	}
	if out.FunctionError != nil {
		r := &refusal{}
		if json.Unmarshal(out.Payload, r) != nil || r.Name == "" {
			return nil, fmt.Errorf("%s failed: %s", t.function, out.Payload)
		}
		return nil, r
	}
	return out.Payload, nil
}

// adminFor is where a command's documents go: the stage's admin function,
// or the handler in-process against the local store.
func adminFor(ctx context.Context, t targetFlags) (adminTarget, error) {
	if t.remote() {
		st, err := t.openStage(ctx)
		if err != nil {
			return nil, err
		}
		fn, err := st.output(outputAdminFunction)
		if err != nil {
			return nil, err
		}
		return onStage{client: st.lambda(), function: fn}, nil
	}
	e, err := open(ctx)
	if err != nil {
		return nil, err
	}
	h, err := localAdmin(e)
	if err != nil {
		return nil, err
	}
	return inProcess{handle: h}, nil
}

// localAdmin is the admin handler over the local store, built by boot's
// table as functions/admin/main.go builds it; its redeliveries go to
// ElasticMQ, whose queues are made the first time one is sent; its sign-in
// links lead to the local gateway; it reads evidence bodies over 350 KB
// from the local evidence directory.
func localAdmin(e *env) (boot.AdminHandler, error) {
	allow, err := localAllowList()
	if err != nil {
		return nil, err
	}
	return boot.As[boot.AdminHandler]("admin", boot.Deps{Store: e.store, Log: e.log, Clock: domain.SystemClock, Deliveries: &lazyQueue{}, Allow: allow,
		SettingsURL: localSettingsURL(), Blobs: localBlobs(), Records: localRecords(), Passkeys: localPasskeys()})
}

// lazyQueue finds the local deliveries queue when first used.
type lazyQueue struct {
	once sync.Once
	q    *delivery.SQSQueue
	err  error
}

func (l *lazyQueue) Send(ctx context.Context, msgs []delivery.Message) error {
	l.once.Do(func() { l.q, l.err = deliveriesQueue(ctx) })
	if l.err != nil {
		return l.err
	}
	return l.q.Send(ctx, msgs)
}

// runAdmin sends one command document (the actor added) and decodes the
// answer into out.
func runAdmin(ctx context.Context, t adminTarget, actor string, doc map[string]any, out any) error {
	doc["actor"] = actor
	b, err := t.Run(ctx, doc)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s answered %s: %w", doc["command"], b, err)
	}
	return nil
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
