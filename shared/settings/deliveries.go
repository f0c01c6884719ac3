package settings

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/webhooks"
	"github.com/evs-kyb/evs/shared/webpage"
)

const (
	// listLimit is how many attempts a listing shows.
	listLimit = 100
	// maxAttemptsShown bounds the attempts read for one delivery's page.
	maxAttemptsShown = 50
	dateLayout       = "2006-01-02"
)

// deliveryIDPattern is a delivery attempt's id: "dlv_" and the digest, and
// ".<n>" for a redelivery.
var deliveryIDPattern = regexp.MustCompile(`^dlv_[A-Za-z0-9_-]{1,100}(\.[0-9]{1,6})?$`)

// deliveryFilter is the list's filter form, as given.
type deliveryFilter struct {
	Endpoint string
	Status   string
	Event    string
	From     string
	To       string
}

type deliveriesPage struct {
	Filter    deliveryFilter
	Errors    map[string][]string
	Endpoints []domain.Endpoint
	Statuses  []domain.DeliveryStatus
	Events    []domain.EventType
	Rows      []domain.Delivery
	// Capped: more attempts match than are shown.
	Capped bool
	Limit  int
}

// deliveryPage is one attempt, its delivery's attempts, and the
// redelivery form.
type deliveryPage struct {
	Delivery domain.Delivery
	Body     string // pretty-printed when it is JSON
	Headers  []header
	Attempts []domain.Delivery
	Latest   domain.Delivery
	// MoreAttempts counts attempts not shown (beyond maxAttemptsShown).
	MoreAttempts int
	// CanRedeliver: the operator may, and the latest attempt failed.
	CanRedeliver bool
	Form         redeliverForm
}

type redeliverForm struct {
	Reason   string
	ActionID string // kept when the form comes back refused
	Errors   map[string][]string
	Problem  string
}

// header is a request header as sent.
type header struct {
	Name, Value, Note string
}

func (h *handler) deliveryList(c *webpage.Call) {
	ctx := c.R.Context()
	p := deliveriesPage{Statuses: domain.DeliveryStatuses(), Events: domain.EventTypes(), Limit: listLimit}
	f, from, to, errs := readDeliveryFilter(c.R.URL.Query())
	p.Filter, p.Errors = f, errs
	eps, err := h.d.Endpoints.List(ctx, c.Actor())
	if err != nil {
		c.Fail(err)
		return
	}
	p.Endpoints = eps
	if errs != nil {
		c.Render(http.StatusBadRequest, "deliveries", "Deliveries", "deliveries", p)
		return
	}
	// One more than shown tells whether there are more. The dates are a
	// range DynamoDB reads, however old.
	df := domain.DeliveryFilter{Status: domain.DeliveryStatus(f.Status), EventType: domain.EventType(f.Event),
		CreatedFrom: from, CreatedBefore: to, Limit: listLimit + 1}
	df.EndpointID, _ = strconv.ParseInt(f.Endpoint, 10, 64)
	ds, err := h.d.Deliveries.List(ctx, c.Session.AccountID, c.Session.Operator.ID, df)
	if err != nil {
		c.Fail(err)
		return
	}
	p.Rows = ds
	if len(p.Rows) > listLimit {
		p.Rows, p.Capped = p.Rows[:listLimit], true
	}
	c.Render(http.StatusOK, "deliveries", "Deliveries", "deliveries", p)
}

// readDeliveryFilter reads the filter form; from and to are the range's
// first instant and the instant after it (to's day included: the filter's
// CreatedFrom and CreatedBefore), zero when not given. The form's own
// check of the range says it in the form's words; the filter's Validate
// would refuse the same.
func readDeliveryFilter(q url.Values) (f deliveryFilter, from, to time.Time, errs map[string][]string) {
	f = deliveryFilter{Endpoint: strings.TrimSpace(q.Get("endpoint")), Status: q.Get("status"), Event: q.Get("event"),
		From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to"))}
	bad := func(field, msg string) {
		if errs == nil {
			errs = map[string][]string{}
		}
		errs[field] = append(errs[field], msg)
	}
	if f.Endpoint != "" {
		if id, err := strconv.ParseInt(f.Endpoint, 10, 64); err != nil || id <= 0 {
			bad("endpoint", "must be one of your endpoints")
		}
	}
	if err := (domain.DeliveryFilter{Status: domain.DeliveryStatus(f.Status), EventType: domain.EventType(f.Event)}).Validate(); err != nil {
		for field, msgs := range domain.ErrorFields(err) {
			for _, m := range msgs {
				bad(field, m)
			}
		}
	}
	day := func(field, s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(dateLayout, s)
		if err != nil {
			bad(field, "must be a date such as 2026-11-01")
		}
		return t
	}
	from, to = day("from", f.From), day("to", f.To)
	if !to.IsZero() {
		to = to.AddDate(0, 0, 1)
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		bad("to", "must not be before the first day")
	}
	return f, from, to, errs
}

func (h *handler) deliveryShow(c *webpage.Call) {
	id := c.R.PathValue("id")
	if !deliveryIDPattern.MatchString(id) {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	p, err := h.loadDelivery(c, id)
	if err != nil {
		c.Fail(err)
		return
	}
	c.Render(http.StatusOK, "delivery", "Delivery "+id, "deliveries", p)
}

// loadDelivery reads one attempt and the latest attempts of its delivery,
// as the operator: the Redeliverer checks webhook_delivery.view and keeps
// to the session's account.
func (h *handler) loadDelivery(c *webpage.Call, id string) (deliveryPage, error) {
	ctx, a := c.R.Context(), c.Actor()
	d, err := h.d.Deliveries.Get(ctx, a, id)
	if err != nil {
		return deliveryPage{}, err
	}
	atts, more, err := h.d.Deliveries.Attempts(ctx, a, id, maxAttemptsShown)
	if err != nil {
		return deliveryPage{}, err
	}
	p := deliveryPage{Delivery: d, Body: prettyJSON(d.Payload), Headers: sentHeaders(d), Attempts: atts, MoreAttempts: more}
	p.Latest = p.Attempts[len(p.Attempts)-1]
	p.CanRedeliver = c.Session.Can(domain.PermWebhookEndpointEdit) && p.Latest.Status == domain.DeliveryFailed
	return p, nil
}

// redeliver makes a new attempt of a failed delivery, with the reason
// given, and shows it.
func (h *handler) redeliver(c *webpage.Call) {
	id := c.R.PathValue("id")
	if !deliveryIDPattern.MatchString(id) {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	form := redeliverForm{Reason: strings.TrimSpace(c.R.PostForm.Get("reason")), ActionID: c.ActionID}
	switch problem := freetext.Problem(form.Reason, freetext.Reason); {
	case form.Reason == "":
		form.Errors = map[string][]string{"reason": {"is required: say why the delivery is made again"}}
	case problem != "":
		form.Errors = map[string][]string{"reason": {problem}}
	}
	if form.Errors != nil {
		h.refusedRedelivery(c, id, http.StatusUnprocessableEntity, form)
		return
	}
	next, err := h.d.Deliveries.RedeliverAs(c.R.Context(), c.Actor(), id, form.Reason)
	switch {
	case err != nil && domain.ErrorCode(err) == domain.ECodeInternal && next.ID != "":
		// Recorded, not queued: the same form again (same action id)
		// queues it.
		c.Log.Error("redelivery recorded but not queued", "delivery_id", next.ID, "error", err.Error())
		form.Problem = "The new attempt " + next.ID + " was recorded but could not be queued. Send this form again to queue it."
		h.refusedRedelivery(c, id, http.StatusServiceUnavailable, form)
		return
	case domain.ErrorCode(err) == domain.ECodeInvalid:
		form.Errors = domain.ErrorFields(err)
		if form.Errors == nil {
			form.Problem = domain.ErrorMessage(err)
		}
		h.refusedRedelivery(c, id, http.StatusUnprocessableEntity, form)
		return
	case err != nil:
		c.Fail(err)
		return
	}
	c.Log.Info("delivery redelivered", "delivery_id", id, "attempt_id", next.ID)
	webpage.Redirect(c.W, c.Base+"/deliveries/"+url.PathEscape(next.ID))
}

func (h *handler) refusedRedelivery(c *webpage.Call, id string, status int, form redeliverForm) {
	p, err := h.loadDelivery(c, id)
	if err != nil {
		c.Fail(err)
		return
	}
	p.Form = form
	// The form comes back to be sent again, even when its attempt was
	// recorded and waits queued: the same action id then queues it.
	p.CanRedeliver = true
	c.Render(status, "delivery", "Delivery "+id, "deliveries", p)
}

// prettyJSON indents a JSON body; anything else is shown as it is.
func prettyJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// sentHeaders are the headers an attempt was posted with, as package
// delivery sets them. The signature is not recorded (it is an HMAC of the
// body with the endpoint's secret), and the timestamp is the attempt's
// start, the second the POST left within a moment.
func sentHeaders(d domain.Delivery) []header {
	if d.StartedAt == nil {
		return nil
	}
	return []header{
		{Name: "Content-Type", Value: "application/json"},
		{Name: "User-Agent", Value: delivery.UserAgent},
		{Name: webhooks.SignatureHeader, Value: "sha256=…", Note: "not recorded: the HMAC-SHA256 of the body with the endpoint's secret; two values, comma-separated, while a rotation overlaps"},
		{Name: delivery.HeaderDeliveryID, Value: d.ID},
		{Name: delivery.HeaderEventID, Value: d.EventID},
		{Name: delivery.HeaderTimestamp, Value: strconv.FormatInt(d.StartedAt.Unix(), 10), Note: "when the attempt started"},
	}
}
