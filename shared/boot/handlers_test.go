package boot

import (
	"context"
	"io"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
)

// fullDeps has every part of Deps; building a handler touches no network.
func fullDeps() Deps {
	db := dynamo.New(aws.Config{Region: "us-east-1"})
	return Deps{
		Store:      store.New(db, schema.NamesWithPrefix("boot-test-")),
		Log:        slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Intake:     &checks.Runner{Clock: domain.SystemClock},
		Readers:    map[string]screening.Reader{checks.ProviderOpenSanctions: &checks.Yente{}},
		Deliveries: &delivery.SQSQueue{},
		Records:    records.Dir{Root: os.TempDir()},
		Clock:      domain.SystemClock,
	}
}

// TestTableMatchesCatalogue: every deployed function has a table entry,
// and every entry is a deployed function.
func TestTableMatchesCatalogue(t *testing.T) {
	var deployed []string
	for _, f := range deploy.Functions() {
		deployed = append(deployed, f.Name)
	}
	slices.Sort(deployed)
	for _, name := range deployed {
		if !slices.Contains(Names(), name) {
			t.Errorf("%s is deployed (shared/deploy) but has no entry in boot's table", name)
		}
	}
	for _, name := range Names() {
		if !slices.Contains(deployed, name) {
			t.Errorf("boot's table has %s, which shared/deploy does not deploy", name)
		}
	}
}

// TestHandlerKinds: each handler is built as its kind's type, with a
// signature lambda.Start accepts.
func TestHandlerKinds(t *testing.T) {
	kinds := map[string]any{
		"authorizer":       AuthorizerHandler(nil),
		"list-entities":    HTTPHandler(nil),
		"create-entity":    HTTPHandler(nil),
		"get-entity":       HTTPHandler(nil),
		"get-review":       HTTPHandler(nil),
		"provider-webhook": HTTPHandler(nil),
		"api-description":  HTTPHandler(nil),
		"web":              HTTPHandler(nil),
		"decision":         DecisionHandler(nil),
		"periodic-reviews": ScheduleHandler(nil),
		"review-events":    StreamHandler(nil),
		"webhook-delivery": QueueHandler(nil),
		"admin":            AdminHandler(nil),
		"audit-export":     RecordsHandler(nil),
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			h, err := Handler(name, fullDeps())
			if err != nil {
				t.Fatal(err)
			}
			want, ok := kinds[name]
			if !ok {
				t.Fatalf("no kind for %s: add it to this test", name)
			}
			if got := reflect.TypeOf(h); got != reflect.TypeOf(want) {
				t.Errorf("handler is a %v, want %v", got, reflect.TypeOf(want))
			}
			if err := lambdaSignature(reflect.TypeOf(h)); err != "" {
				t.Error(err)
			}
		})
	}
}

// lambdaSignature repeats aws-lambda-go's checks of a handler (which it
// only reports at the first invocation): func([context.Context,] [In])
// ([Out,] error).
func lambdaSignature(t reflect.Type) string {
	ctx := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	switch {
	case t.Kind() != reflect.Func:
		return t.String() + " is not a func"
	case t.NumIn() > 2 || (t.NumIn() == 2 && !t.In(0).Implements(ctx)):
		return t.String() + " takes more than a context and an event"
	case t.NumOut() == 0 || t.NumOut() > 2 || !t.Out(t.NumOut()-1).Implements(errType):
		return t.String() + " does not return ([output,] error)"
	}
	return ""
}

func TestHandlerRefuses(t *testing.T) {
	without := func(edit func(*Deps)) Deps {
		d := fullDeps()
		edit(&d)
		return d
	}
	cases := []struct {
		name, function string
		deps           Deps
		want           string
	}{
		{"unknown function", "delete-entity", fullDeps(), `no function "delete-entity"; the functions are admin, api-description, audit-export, authorizer, create-entity`},
		{"no store", "get-entity", without(func(d *Deps) { d.Store = nil }), "get-entity: Deps lacks Store"},
		{"no intake", "create-entity", without(func(d *Deps) { d.Intake = nil }), "create-entity: Deps lacks Intake"},
		{"no intake for queue_checks", "decision", without(func(d *Deps) { d.Intake = nil }), "decision: Deps lacks Intake"},
		{"no readers", "provider-webhook", without(func(d *Deps) { d.Readers = nil }), "provider-webhook: Deps lacks Readers"},
		{"no queue", "review-events", without(func(d *Deps) { d.Deliveries = nil }), "review-events: Deps lacks Deliveries"},
		{"nothing", "admin", Deps{}, "admin: Deps lacks Store, Deliveries"},
		{"no clock", "authorizer", without(func(d *Deps) { d.Clock = nil }), "authorizer: Deps lacks Clock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Handler(c.function, c.deps)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Handler = %T, %v; want an error with %q", h, err, c.want)
			}
		})
	}
}

// TestStorelessHandler: a function that reads no table is built without a
// store; every other function still needs one.
func TestStorelessHandler(t *testing.T) {
	if _, err := As[HTTPHandler]("api-description", Deps{Clock: domain.SystemClock}); err != nil {
		t.Errorf("api-description without a store: %v", err)
	}
	if _, err := Handler("get-review", Deps{Clock: domain.SystemClock}); err == nil || !strings.Contains(err.Error(), "Deps lacks Store") {
		t.Errorf("get-review without a store: %v, want Deps lacks Store", err)
	}
}

func TestAs(t *testing.T) {
	if _, err := As[QueueHandler]("webhook-delivery", fullDeps()); err != nil {
		t.Error(err)
	}
	_, err := As[HTTPHandler]("admin", fullDeps())
	if err == nil || !strings.Contains(err.Error(), "the handler of admin is a func(context.Context, json.RawMessage)") {
		t.Errorf("As of the wrong kind: %v", err)
	}
	if _, err := As[HTTPHandler]("nope", fullDeps()); err == nil {
		t.Error("As of an unknown function: no error")
	}
}
