package boot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/httplambda"
	"github.com/evs-kyb/evs/shared/reviewevents"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// The handler types the table builds, one per kind of event, with the
// signatures lambda.Start takes as they are; local runs each by its type
// (As).
type (
	HTTPHandler       = httplambda.Handler
	AuthorizerHandler = func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)
	StreamHandler     = func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
	QueueHandler      = func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	DecisionHandler   = func(context.Context, json.RawMessage) (decisions.TaskOutput, error)
	ScheduleHandler   = func(context.Context, events.CloudWatchEvent) (decisions.RunResult, error)
	AdminHandler      = func(context.Context, json.RawMessage) (json.RawMessage, error)
)

// function is one entry of the table: what of Deps it needs and how its
// handler is built.
type function struct {
	needs need
	build func(Deps, deploy.Function) any
}

// entry types an entry's handler, so each is built as exactly the type its
// kind names above.
func entry[H any](needs need, build func(Deps, deploy.Function) H) function {
	return function{needs: needs, build: func(d Deps, f deploy.Function) any { return build(d, f) }}
}

// httpEntry is an API function: its http.Handler behind the API Gateway
// proxy adapter.
func httpEntry(needs need, build func(Deps) http.Handler) function {
	return entry(needs, func(d Deps, _ deploy.Function) HTTPHandler { return httplambda.New(build(d), d.log()) })
}

// functions is the table, keyed by the deployed function's name
// (shared/deploy). A fresh map each call: nothing can change it.
func functions() map[string]function {
	return map[string]function{
		"authorizer": entry(0, func(d Deps, _ deploy.Function) AuthorizerHandler {
			return (&auth.Authorizer{Keys: d.Store, Clock: d.Clock}).Handle
		}),
		"list-entities": httpEntry(0, func(d Deps) http.Handler { return api.NewListEntities(d.Store, country.ISO()) }),
		"create-entity": httpEntry(needIntake|needBlobs, func(d Deps) http.Handler {
			return api.NewCreateEntity(api.CreateEntity{Store: d.Store, Intake: d.Intake, Countries: country.ISO(), Clock: d.Clock})
		}),
		"get-entity": httpEntry(0, func(d Deps) http.Handler { return api.NewGetEntity(d.Store, country.ISO()) }),
		"get-review": httpEntry(0, func(d Deps) http.Handler { return api.NewGetReview(d.Store, country.ISO()) }),
		"provider-webhook": httpEntry(needInbound|needBlobs, func(d Deps) http.Handler {
			svc := &screening.Service{Store: d.Store, Readers: d.Readers, Clock: d.Clock, Blobs: d.Blobs}
			return api.NewProviderWebhook(api.ProviderWebhook{Secrets: d.WebhookSecrets, Screening: svc, Clock: d.Clock})
		}),
		"api-description": httpEntry(storeless, func(Deps) http.Handler { return api.NewDescription() }),
		"decision": entry(needIntake|needBlobs|needPasskeys, func(d Deps, _ deploy.Function) DecisionHandler {
			return (&decisions.Service{Store: d.Store, Checker: d.Intake, Clock: d.Clock, Countries: country.ISO(), Signatures: d.signatures()}).HandleDocument
		}),
		"periodic-reviews": entry(0, func(d Deps, _ deploy.Function) ScheduleHandler {
			return (&decisions.Scheduler{Store: d.Store, Clock: d.Clock, Queue: d.Store}).HandleSchedule
		}),
		"audit-export": entry(needBlobs|needRecords|needPasskeys, func(d Deps, _ deploy.Function) RecordsHandler {
			return recordsHandler(Exporter(d))
		}),
		"review-events": entry(needQueue, func(d Deps, _ deploy.Function) StreamHandler {
			return (&reviewevents.Emitter{Endpoints: d.Store, Reviews: d.Store, Queue: d.Deliveries}).Handle
		}),
		"webhook-delivery": entry(needAllow|needMetrics, func(d Deps, f deploy.Function) QueueHandler {
			return (&delivery.Deliverer{
				Store:  d.Store,
				Client: webhooks.NewClient(webhooks.ClientOptions{Timeout: d.webhookTimeout(), Allow: d.Allow}),
				// Outlasting the function's own timeout: a claim is never
				// taken over while its invocation may still run.
				Lease:   delivery.LeaseFor(f.TimeoutSeconds),
				Metrics: d.Metrics,
				Clock:   d.Clock,
			}).Handle
		}),
		// The web function: the settings area and the operator console.
		"web": httpEntry(needQueue|needAllow|needPasskeys|needWorkflow|needBlobs, web),
		"admin": entry(needQueue|needAllow|needSettings|needBlobs|needPasskeys|needRecords, func(d Deps, _ deploy.Function) AdminHandler {
			return (&admin.Handler{Store: d.Store, Queue: d.Deliveries, Allow: d.Allow, Clock: d.Clock, SettingsURL: d.SettingsURL, Blobs: d.Blobs,
				Records: d.Records, Exporter: Exporter(d),
				Passkeys: d.Passkeys}).Handle
		}),
	}
}

// Names lists the table's functions, sorted.
func Names() []string {
	var out []string
	for name := range functions() {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// lookup finds a function in the table and in the catalogue: a name missing
// from either is an error, never a zero value (a zero timeout would make a
// 15-minute delivery lease).
func lookup(name string) (function, deploy.Function, error) {
	fn, ok := functions()[name]
	if !ok {
		return function{}, deploy.Function{}, fmt.Errorf("boot: no function %q; the functions are %s", name, strings.Join(Names(), ", "))
	}
	f, ok := deploy.Lookup(name)
	if !ok {
		return function{}, deploy.Function{}, fmt.Errorf("boot: %q is not a function of shared/deploy", name)
	}
	return fn, f, nil
}

// Handler builds the Lambda handler of the function deployed as name from
// d, as its functions/<name>/main.go runs it (lambda.Start takes it as it
// is), confined to what its catalogue entry gives it (confine): its own
// tables, and every call put to its role first. Its dynamic type is the
// kind's type above.
func Handler(name string, d Deps) (any, error) {
	_, f, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return HandlerOf(f, d)
}

// HandlerOf is Handler under the catalogue entry f instead of the
// function's own: a test gives a function a grant less, and sees the path
// that needs it refused as IAM would refuse it.
func HandlerOf(f deploy.Function, d Deps) (any, error) {
	fn, ok := functions()[f.Name]
	if !ok {
		return nil, fmt.Errorf("boot: no function %q; the functions are %s", f.Name, strings.Join(Names(), ", "))
	}
	if err := d.check(fn.needs); err != nil {
		return nil, fmt.Errorf("boot: %s: %w", f.Name, err)
	}
	own, err := confine(d, fn, f)
	if err != nil {
		return nil, err
	}
	return fn.build(own, f), nil
}

// As is Handler's handler as H, one of the types above, for a caller that
// invokes it directly (the local runner, the tests).
func As[H any](name string, d Deps) (H, error) {
	h, err := Handler(name, d)
	return typed[H](name, h, err)
}

// AsOf is HandlerOf's handler as H.
func AsOf[H any](f deploy.Function, d Deps) (H, error) {
	h, err := HandlerOf(f, d)
	return typed[H](f.Name, h, err)
}

func typed[H any](name string, h any, err error) (H, error) {
	var zero H
	if err != nil {
		return zero, err
	}
	out, ok := h.(H)
	if !ok {
		return zero, fmt.Errorf("boot: the handler of %s is a %T, not a %T", name, h, zero)
	}
	return out, nil
}
