package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// localAllowedNetworks are the networks local webhook endpoints and
// deliveries may use although loopback: make local's receivers run on this
// machine. WEBHOOK_ALLOWED_NETWORKS overrides it (empty string: none).
const localAllowedNetworks = "127.0.0.0/8,::1/128"

func localAllowList() (webhooks.AllowList, error) {
	v, ok := os.LookupEnv("WEBHOOK_ALLOWED_NETWORKS")
	if !ok {
		v = localAllowedNetworks
	}
	return webhooks.ParseAllowList(v)
}

// accountOrDemo is the --account given, or the demo account of make local.
func accountOrDemo(cmd string, account int64) (int64, error) {
	if account > 0 {
		return account, nil
	}
	path, _ := demoStatePath()
	st, err := readDemoState(path)
	if err != nil {
		return 0, usageError{cmd + ": --account is required (no demo account found)"}
	}
	return st.AccountID, nil
}

func printLine(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

// cmdEndpoint runs endpoint create|list|get|update|rotate|delete|test.
func cmdEndpoint(ctx context.Context, sub string, args []string) error {
	c := newAdminCmd("endpoint " + sub)
	doc, lf, err := endpointDocument(c, sub, args)
	if err != nil {
		return err
	}
	return sendEndpoint(ctx, c, sub, doc, lf)
}

// endpointDocument parses an endpoint command line into the admin
// function's document: the command, the account, and each flag given.
func endpointDocument(c *adminCmd, sub string, args []string) (map[string]any, *listFlags, error) {
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	operator := idFlag(c.fs, "operator", "operator id, who needs webhook_endpoint.manage (list, get: or webhook_delivery.view); default: the account's administrator")
	actionID := c.fs.String("action-id", "", "the change's id in the audit trail (default: a fresh one)")
	url := c.fs.String("url", "", "the endpoint's URL (https; http only to allowed networks)")
	events := c.fs.String("events", "", "comma-separated event kinds: "+strings.Join(eventNames(), ","))
	description := c.fs.String("description", "\x00", "a note on the endpoint")
	id := idFlag(c.fs, "id", "endpoint id")
	active := c.fs.String("active", "", "update: true or false")
	overlap := durationFlag(c.fs, "overlap", 0, "rotate: how long the old secret keeps signing (default 24h)")
	lf := addListFlags(c.fs)
	if err := parseListing(c.fs, args, lf, sub == "list"); err != nil {
		return nil, nil, err
	}
	if sub != "create" && sub != "list" && *id == 0 {
		return nil, nil, usageError{"endpoint " + sub + ": --id is required"}
	}
	acct, err := c.account(*account)
	if err != nil {
		return nil, nil, err
	}
	doc := map[string]any{"command": "endpoint." + sub, "account_id": acct}
	if *operator != 0 {
		doc["operator_id"] = *operator
	}
	if *actionID != "" {
		doc["action_id"] = *actionID
	}
	if *id != 0 {
		doc["endpoint_id"] = *id
	}
	if *url != "" {
		doc["url"] = *url
	}
	if *events != "" {
		doc["events"] = splitList(*events)
	}
	if *description != "\x00" {
		doc["description"] = *description
	}
	if *active != "" {
		b, err := strconv.ParseBool(*active)
		if err != nil {
			return nil, nil, usageError{"endpoint update: --active must be true or false"}
		}
		doc["active"] = b
	}
	if given(c.fs, "overlap") {
		doc["overlap"] = overlap.String()
	}
	return doc, lf, nil
}

// sendEndpoint sends the document and prints the answer as the command
// shows it.
func sendEndpoint(ctx context.Context, c *adminCmd, sub string, doc map[string]any, lf *listFlags) error {
	var out struct {
		Endpoint  admin.EndpointView   `json:"endpoint"`
		Endpoints []admin.EndpointView `json:"endpoints"`
		Secret    string               `json:"secret"`
	}
	switch sub {
	case "create":
		// Given only when --url and --events were.
		_, url := doc["url"]
		_, events := doc["events"]
		if !url || !events {
			return usageError{"endpoint create: --url and --events are required"}
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		fmt.Printf("%d\t%s\n", out.Endpoint.ID, out.Secret) // the secret is shown this once
	case "list":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		return printList(lf, out.Endpoints, endpointColumns)
	case "get", "update":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		printLine(out.Endpoint)
	case "rotate":
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		fmt.Println(out.Secret) // shown this once; the old one signs until the overlap ends
	case "delete":
		return c.send(ctx, doc, nil)
	case "test":
		var sent struct {
			Delivery admin.DeliveryView `json:"delivery"`
		}
		if err := c.send(ctx, doc, &sent); err != nil {
			return err
		}
		printLine(sent.Delivery) // queued: deliveries get --id shows how it went
	default:
		return usageError{fmt.Sprintf("unknown command %q", "endpoint "+sub)}
	}
	return nil
}

// endpointColumns and deliveryColumns are endpoint list's and deliveries
// list's tables.
var endpointColumns = []column[admin.EndpointView]{
	{"ID", func(ep admin.EndpointView) string { return idCell(ep.ID) }},
	{"URL", func(ep admin.EndpointView) string { return ep.URL }},
	{"ACTIVE", func(ep admin.EndpointView) string { return yesNo(ep.Active) }},
	{"EVENTS", func(ep admin.EndpointView) string {
		var names []string
		for _, e := range ep.Events {
			names = append(names, string(e))
		}
		return strings.Join(names, ",")
	}},
	{"UPDATED", func(ep admin.EndpointView) string { return ep.UpdatedAt }},
	{"DESCRIPTION", func(ep admin.EndpointView) string { return short(ep.Description) }},
}

var deliveryColumns = []column[admin.DeliveryView]{
	{"CREATED", func(d admin.DeliveryView) string { return d.CreatedAt }},
	{"ID", func(d admin.DeliveryView) string { return d.ID }},
	{"ATTEMPT", func(d admin.DeliveryView) string { return strconv.Itoa(d.Attempt) }},
	{"ENDPOINT", func(d admin.DeliveryView) string { return idCell(d.EndpointID) }},
	{"EVENT", func(d admin.DeliveryView) string { return d.EventType }},
	{"REVIEW", func(d admin.DeliveryView) string { return idCell(d.ReviewID) }},
	{"STATUS", func(d admin.DeliveryView) string { return d.Status }},
	{"HTTP", func(d admin.DeliveryView) string {
		if d.ResponseStatus == 0 {
			return ""
		}
		return strconv.Itoa(d.ResponseStatus)
	}},
	{"MS", func(d admin.DeliveryView) string { return strconv.FormatInt(d.DurationMS, 10) }},
	{"ERROR", func(d admin.DeliveryView) string { return short(d.Error) }},
}

func eventNames() []string {
	var out []string
	for _, t := range domain.EventTypes() {
		out = append(out, string(t))
	}
	return out
}

// deliveriesQueue is the local deliveries queue in ElasticMQ, created if
// missing.
func deliveriesQueue(ctx context.Context) (*delivery.SQSQueue, error) {
	client := pipeline.SQSClient(devstack.SQSEndpoint())
	urls, err := pipeline.EnsureQueues(ctx, client, tablePrefix())
	if err != nil {
		return nil, err
	}
	return &delivery.SQSQueue{Client: client, URL: urls[deploy.QueueDeliveries]}, nil
}

// cmdDeliveries runs deliveries list|get|redeliver.
func cmdDeliveries(ctx context.Context, sub string, args []string) error {
	c := newAccountCmd("deliveries " + sub)
	operator := idFlag(c.fs, "operator", "operator id (list, get: needs webhook_delivery.view; redeliver: needs webhook_endpoint.manage); default: the account's administrator")
	endpoint := idFlag(c.fs, "endpoint", "list: only this endpoint's")
	review := idFlag(c.fs, "review", "list: only this review's")
	event := c.fs.String("event", "", "list: only this event kind's")
	status := c.fs.String("status", "", "list: queued, sending, delivered or failed")
	from := c.fs.String("from", "", "list: only attempts created at or after this RFC 3339 time (2026-11-01T00:00:00Z)")
	before := c.fs.String("before", "", "list: only attempts created before this RFC 3339 time")
	limit := limitFlag(c.fs, "limit", 100, "list: at most this many, newest first")
	id := c.fs.String("id", "", "get, redeliver: the delivery (any of its attempts)")
	reason := c.fs.String("reason", "redelivered from the command line", "redeliver: why")
	actionID := c.fs.String("action-id", "", "redeliver: the action's id; repeating one redelivers once (default: a fresh one)")
	acct, lf, err := c.parseOnAccount(args, sub == "list")
	if err != nil {
		return err
	}
	doc := map[string]any{"command": "delivery." + sub, "account_id": acct}
	if *operator != 0 {
		doc["operator_id"] = *operator
	}
	var out struct {
		Delivery   admin.DeliveryView   `json:"delivery"`
		Deliveries []admin.DeliveryView `json:"deliveries"`
	}
	switch sub {
	case "list":
		if *endpoint != 0 {
			doc["endpoint_id"] = *endpoint
		}
		if *review != 0 {
			doc["review_id"] = *review
		}
		if *event != "" {
			doc["event_type"] = *event
		}
		if *status != "" {
			doc["status"] = *status
		}
		// As given: the admin command reads and checks the times.
		if *from != "" {
			doc["created_from"] = *from
		}
		if *before != "" {
			doc["created_before"] = *before
		}
		doc["limit"] = *limit
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		return printList(lf, out.Deliveries, deliveryColumns)
	case "get", "redeliver":
		if *id == "" {
			return usageError{"deliveries " + sub + ": --id is required"}
		}
		doc["delivery_id"] = *id
		if sub == "redeliver" {
			doc["reason"] = *reason
			if *actionID != "" {
				doc["action_id"] = *actionID
			}
		}
		if err := c.send(ctx, doc, &out); err != nil {
			return err
		}
		printLine(out.Delivery)
	default:
		return usageError{fmt.Sprintf("unknown command %q", "deliveries "+sub)}
	}
	return nil
}
