package sam

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Events are what invokes a function, as the CDK stack wires it: its API
// routes (plus ANY on a path whose first route it serves, so another method
// reaches it and is answered 405 with Allow), its stream or queue event
// sources, and its daily schedule (stack.DailyRuns). SAM names the event
// source mapping of an event <function><event>, which is the CDK stack's
// stack.EventSourceMappingIDs.
func Events(f deploy.Function) ([]Pair, error) {
	var out []Pair
	paths := map[string]bool{}
	for _, r := range deploy.Routes() {
		if r.Function == f.Name {
			paths[r.Path] = true
		}
	}
	for _, r := range deploy.Routes() {
		if r.Function != f.Name {
			continue
		}
		// Event names are unique per function: one that serves several
		// paths (the settings area and the console) names each event by
		// its path too.
		suffix := ""
		if len(paths) > 1 {
			suffix = pathName(r.Path)
		}
		out = append(out, apiEvent(titleCase(r.Method)+suffix, r, r.Method))
		if routes := stack.RoutesOn(r.Path); routes[0] == r {
			out = append(out, apiEvent("AnyMethod"+suffix, r, "ANY"))
		}
	}
	if len(f.Streams) > 0 && f.Queue != nil {
		return nil, errors.New("streams and a queue as event sources")
	}
	streams, err := streamEvents(f.Streams)
	if err != nil {
		return nil, err
	}
	out = append(out, streams...)
	if src := f.Queue; src != nil {
		ev, err := queueEvent(*src)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	if run, ok := stack.DailyRunOf(f.Name); ok {
		out = append(out, dailyEvent(run))
	}
	return out, nil
}

// streamEvents are the events of a function's stream sources, as
// stack.NewEventSources maps them.
func streamEvents(sources []deploy.StreamSource) ([]Pair, error) {
	var out []Pair
	for i, src := range sources {
		props := []Pair{
			KV("Stream", GetAtt(deploy.TableLogicalID(src.Table), "StreamArn")),
			KV("StartingPosition", stack.StreamStartingPosition),
			KV("BatchSize", src.BatchSize),
			KV("BisectBatchOnFunctionError", true),
			KV("MaximumRetryAttempts", src.MaxRetries),
			KV("MaximumRecordAgeInSeconds", src.MaxRecordAge),
		}
		if src.OnFailure != "" {
			q, err := deploy.QueueByID(src.OnFailure)
			if err != nil {
				return nil, fmt.Errorf("on-failure: %w", err)
			}
			// Type SQS also has SAM let the function send there.
			props = append(props, KV("DestinationConfig", Map(KV("OnFailure", Map(
				KV("Type", "SQS"),
				KV("Destination", GetAtt(q.LogicalID, "Arn")),
			)))))
		}
		props = append(props, KV("FunctionResponseTypes", []string{stack.ReportBatchItemFailures}))
		ev := KV(stack.StreamName(src.Table), Map(KV("Type", "DynamoDB"), KV("Properties", Map(props...))))
		if i == 0 {
			ev = ev.Note("From the trim horizon (stack.StreamStartingPosition): a mapping created after the stream\n" +
				"loses nothing, and a replay does nothing twice.")
		}
		out = append(out, ev)
	}
	return out, nil
}

// queueEvent is the event of a function's queue source.
func queueEvent(src deploy.QueueSource) (Pair, error) {
	q, err := deploy.QueueByID(src.Queue)
	if err != nil {
		return Pair{}, fmt.Errorf("queue source: %w", err)
	}
	return KV(q.LogicalID, Map(KV("Type", "SQS"), KV("Properties", Map(
		KV("Queue", GetAtt(q.LogicalID, "Arn")),
		KV("BatchSize", src.BatchSize),
		KV("FunctionResponseTypes", []string{stack.ReportBatchItemFailures}),
		KV("ScalingConfig", Map(KV("MaximumConcurrency", stack.QueueMaxConcurrency))),
	)))).Note("At most stack.QueueMaxConcurrency invocations at once, so a burst of deliveries\n" +
		"cannot take the account's concurrency from the API."), nil
}

// dailyEvent is the schedule of a function's daily run.
func dailyEvent(run stack.DailyRun) Pair {
	return KV("Daily", Map(KV("Type", "Schedule"), KV("Properties", Map(
		KV("Name", Sub(run.RuleName(stage))),
		KV("Description", run.Description),
		KV("Schedule", run.Schedule),
		KV("RetryPolicy", Map(
			KV("MaximumRetryAttempts", stack.DailyRunRetryAttempts),
			KV("MaximumEventAgeInSeconds", stack.DailyRunMaxEventAgeSeconds),
		)),
	)))).Note("The handler takes the scheduled event as it is (its time names the period); a\n" +
		"dropped run costs a day, the next does what is due.")
}

// apiEvent is a route's event on the REST API; a Public route has no
// authorizer (the function authenticates each request itself).
func apiEvent(name string, r deploy.Route, method string) Pair {
	props := []Pair{KV("RestApiId", Ref(restAPIID)), KV("Path", r.Path), KV("Method", method)}
	if r.Public {
		props = append(props, KV("Auth", Flow(KV("Authorizer", "NONE"))))
	}
	return KV(name, Map(KV("Type", "Api"), KV("Properties", Flow(props...))))
}

// pathName is a resource path in an event's name: "SettingsProxy" for
// /settings/{proxy+}.
func pathName(path string) string {
	var b strings.Builder
	for _, seg := range strings.Split(path, "/") {
		seg = strings.Trim(seg, "{}+")
		for _, word := range strings.FieldsFunc(seg, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
			b.WriteString(titleCase(word))
		}
	}
	return b.String()
}

// titleCase is "Get" for GET.
func titleCase(method string) string {
	return strings.ToUpper(method[:1]) + strings.ToLower(method[1:])
}
