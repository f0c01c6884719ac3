package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/endpoints"
	"github.com/evs-kyb/evs/shared/store"
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

func newActionID() string { return fmt.Sprintf("cli-%d", time.Now().UnixNano()) }

// endpointService is endpoint management over the local store.
func endpointService(e *env) (*endpoints.Service, error) {
	allow, err := localAllowList()
	if err != nil {
		return nil, err
	}
	return &endpoints.Service{Store: e.store, Allow: allow}, nil
}

// endpointFlags are the flags every endpoint command takes.
type endpointFlags struct {
	fs       *flag.FlagSet
	account  *int64
	operator *int64
	actionID *string
}

func newEndpointFlags(name string) endpointFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return endpointFlags{
		fs:       fs,
		account:  fs.Int64("account", 0, "account id (default: the demo account)"),
		operator: fs.Int64("operator", 0, "operator id, who needs webhook_endpoint.manage (default: the account's administrator)"),
		actionID: fs.String("action-id", "", "the change's id in the audit trail (default: a fresh one)"),
	}
}

func (f endpointFlags) actor(cmd string) (endpoints.Actor, error) {
	acct, err := accountOrDemo(cmd, *f.account)
	if err != nil {
		return endpoints.Actor{}, err
	}
	id := *f.actionID
	if id == "" {
		id = newActionID()
	}
	return endpoints.Actor{AccountID: acct, OperatorID: *f.operator, ActionID: id}, nil
}

func parseEvents(s string) []domain.EventType {
	var out []domain.EventType
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			if !strings.Contains(p, ".") {
				p = "entity_review." + p // "approved" is short for entity_review.approved
			}
			out = append(out, domain.EventType(p))
		}
	}
	return out
}

// endpointView is an endpoint as the commands print it (never its secrets).
type endpointView struct {
	ID                      int64              `json:"id"`
	AccountID               int64              `json:"account_id"`
	URL                     string             `json:"url"`
	Events                  []domain.EventType `json:"events"`
	Active                  bool               `json:"active"`
	Description             string             `json:"description,omitempty"`
	PreviousSecretExpiresAt *string            `json:"previous_secret_expires_at"`
	CreatedAt               string             `json:"created_at"`
	UpdatedAt               string             `json:"updated_at"`
}

func viewEndpoint(ep domain.Endpoint) endpointView {
	v := endpointView{ID: ep.ID, AccountID: ep.AccountID, URL: ep.URL, Events: ep.Events, Active: ep.Active, Description: ep.Description,
		CreatedAt: domain.FormatTime(ep.CreatedAt), UpdatedAt: domain.FormatTime(ep.UpdatedAt)}
	if ep.PreviousExpiresAt != nil {
		s := domain.FormatTime(*ep.PreviousExpiresAt)
		v.PreviousSecretExpiresAt = &s
	}
	return v
}

func printLine(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

// cmdEndpoint runs endpoint create|list|update|rotate|delete.
func cmdEndpoint(ctx context.Context, sub string, args []string) error {
	f := newEndpointFlags("endpoint " + sub)
	url := f.fs.String("url", "", "the endpoint's URL (https; http only to allowed networks)")
	events := f.fs.String("events", "", "comma-separated event kinds: "+strings.Join(eventNames(), ","))
	description := f.fs.String("description", "\x00", "a note on the endpoint")
	id := f.fs.Int64("id", 0, "endpoint id")
	active := f.fs.String("active", "", "update: true or false")
	overlap := f.fs.Duration("overlap", endpoints.DefaultOverlap, "rotate: how long the old secret keeps signing")
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	if sub != "create" && sub != "list" && *id <= 0 {
		return usageError{"endpoint " + sub + ": --id is required"}
	}
	a, err := f.actor("endpoint " + sub)
	if err != nil {
		return err
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	svc, err := endpointService(e)
	if err != nil {
		return err
	}
	switch sub {
	case "create":
		if *url == "" || *events == "" {
			return usageError{"endpoint create: --url and --events are required"}
		}
		desc := ""
		if *description != "\x00" {
			desc = *description
		}
		ep, err := svc.Create(ctx, a, *url, parseEvents(*events), desc)
		if err != nil {
			return err
		}
		fmt.Printf("%d\t%s\n", ep.ID, ep.Secret) // the secret is shown this once
	case "list":
		eps, err := svc.List(ctx, a)
		if err != nil {
			return err
		}
		for _, ep := range eps {
			printLine(viewEndpoint(ep))
		}
	case "update":
		var c endpoints.Changes
		if *url != "" {
			c.URL = url
		}
		if *events != "" {
			c.Events = parseEvents(*events)
		}
		if *description != "\x00" {
			c.Description = description
		}
		if *active != "" {
			b, err := strconv.ParseBool(*active)
			if err != nil {
				return usageError{"endpoint update: --active must be true or false"}
			}
			c.Active = &b
		}
		ep, err := svc.Update(ctx, a, *id, c)
		if err != nil {
			return err
		}
		printLine(viewEndpoint(ep))
	case "rotate":
		ep, err := svc.Rotate(ctx, a, *id, *overlap)
		if err != nil {
			return err
		}
		fmt.Println(ep.Secret) // shown this once; the old one signs until the overlap ends
	case "delete":
		return svc.Delete(ctx, a, *id)
	default:
		return usageError{fmt.Sprintf("unknown command %q", "endpoint "+sub)}
	}
	return nil
}

func eventNames() []string {
	var out []string
	for _, t := range domain.EventTypes {
		out = append(out, string(t))
	}
	return out
}

// deliveryView is one attempt as the deliveries view shows it.
type deliveryView struct {
	ID             string  `json:"id"`
	OriginalID     string  `json:"original_id"`
	Attempt        int     `json:"attempt"`
	EndpointID     int64   `json:"endpoint_id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	ReviewID       int64   `json:"entity_review_id"`
	EntityID       int64   `json:"entity_id"`
	URL            string  `json:"url"`
	Status         string  `json:"status"`
	ResponseStatus int     `json:"response_status,omitempty"`
	ResponseBody   string  `json:"response_body,omitempty"`
	Error          string  `json:"error,omitempty"`
	DurationMS     int64   `json:"duration_ms"`
	RequestedBy    *int64  `json:"requested_by,omitempty"`
	Reason         string  `json:"reason,omitempty"`
	CreatedAt      string  `json:"created_at"`
	StartedAt      *string `json:"started_at"`
	CompletedAt    *string `json:"completed_at"`
}

func viewDelivery(d domain.Delivery) deliveryView {
	opt := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		s := domain.FormatTime(*t)
		return &s
	}
	return deliveryView{
		ID: d.ID, OriginalID: d.OriginalID, Attempt: d.Attempt, EndpointID: d.EndpointID, EventID: d.EventID,
		EventType: string(d.Event.EventType), ReviewID: d.Event.EntityReviewID, EntityID: d.Event.EntityID, URL: d.URL,
		Status: string(d.Status), ResponseStatus: d.ResponseStatus, ResponseBody: d.ResponseBody, Error: d.Error,
		DurationMS: d.DurationMS, RequestedBy: d.RequestedBy, Reason: d.Reason, CreatedAt: domain.FormatTime(d.CreatedAt),
		StartedAt: opt(d.StartedAt), CompletedAt: opt(d.CompletedAt),
	}
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

// cmdDeliveries runs deliveries list|redeliver.
func cmdDeliveries(ctx context.Context, sub string, args []string) error {
	fs := flag.NewFlagSet("deliveries "+sub, flag.ContinueOnError)
	account := fs.Int64("account", 0, "account id (default: the demo account)")
	operator := fs.Int64("operator", 0, "operator id (list: needs webhook_delivery.view, default the administrator; redeliver: required, needs webhook_endpoint.manage)")
	endpoint := fs.Int64("endpoint", 0, "list: only this endpoint's")
	review := fs.Int64("review", 0, "list: only this review's")
	event := fs.String("event", "", "list: only this event kind's")
	status := fs.String("status", "", "list: queued, sending, delivered or failed")
	limit := fs.Int("limit", 100, "list: at most this many, newest first")
	id := fs.String("id", "", "redeliver: the delivery (any of its attempts)")
	reason := fs.String("reason", "redelivered from the command line", "redeliver: why")
	actionID := fs.String("action-id", "", "redeliver: the action's id; repeating one redelivers once (default: a fresh one)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	acct, err := accountOrDemo("deliveries "+sub, *account)
	if err != nil {
		return err
	}
	e, err := open(ctx)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		f := store.DeliveryFilter{EndpointID: *endpoint, ReviewID: *review, Status: domain.DeliveryStatus(*status), Limit: *limit}
		if *event != "" {
			f.EventType = parseEvents(*event)[0]
		}
		var ds []domain.Delivery
		if *operator == 0 {
			ds, err = (&delivery.Operations{Store: e.store}).ListAll(ctx, acct, f)
		} else {
			ds, err = (&delivery.Operations{Store: e.store}).List(ctx, acct, *operator, f)
		}
		if err != nil {
			return err
		}
		for _, d := range ds {
			printLine(viewDelivery(d))
		}
	case "redeliver":
		if *id == "" || *operator <= 0 {
			return usageError{"deliveries redeliver: --id and --operator are required"}
		}
		q, err := deliveriesQueue(ctx)
		if err != nil {
			return err
		}
		aid := *actionID
		if aid == "" {
			aid = newActionID()
		}
		d, err := (&delivery.Operations{Store: e.store, Queue: q}).Redeliver(ctx, acct, *id, *operator, *reason, aid)
		if err != nil {
			return err
		}
		printLine(viewDelivery(d))
	default:
		return usageError{fmt.Sprintf("unknown command %q", "deliveries "+sub)}
	}
	return nil
}
