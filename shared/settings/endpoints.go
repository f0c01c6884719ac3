package settings

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webpage"
)

// endpointRow is an endpoint in the list, with its latest delivery (nil
// when none, or when the operator may not see deliveries).
type endpointRow struct {
	Endpoint domain.Endpoint
	Last     *domain.Delivery
}

type endpointsPage struct {
	Rows   []endpointRow
	Notice string
}

// endpointForm is the create and edit form, filled again after a refusal.
type endpointForm struct {
	ID          int64 // 0 for a new endpoint
	URL         string
	Events      []domain.EventType
	Description string
	AllEvents   []domain.EventType
	// ActionID is kept when the form comes back refused: nothing was
	// changed under it, and a double submit stays one change.
	ActionID string
	Errors   map[string][]string
	Problem  string // a refusal not about one field
}

type endpointPage struct {
	Endpoint domain.Endpoint
	// Rotating: the previous secret still signs, until PreviousExpiresAt.
	Rotating bool
	Recent   []domain.Delivery
	Overlaps []overlap
	Notice   string
}

// secretPage shows a new secret, this once. The endpoint is redacted;
// the secret is only ever in Secret.
type secretPage struct {
	Endpoint domain.Endpoint
	Secret   string
	Rotated  bool
}

// overlap is a choice of how long the old secret keeps signing after a
// rotation.
type overlap struct {
	Value   string
	Label   string
	Default bool
	d       time.Duration
}

func overlaps() []overlap {
	return []overlap{
		{Value: "1h", Label: "1 hour", d: time.Hour},
		{Value: "24h", Label: "24 hours", d: 24 * time.Hour, Default: true},
		{Value: "168h", Label: "7 days", d: subscriptions.MaxOverlap},
	}
}

func (h *handler) endpointList(c *webpage.Call) {
	ctx := c.R.Context()
	eps, err := h.d.Endpoints.List(ctx, c.Actor())
	if err != nil {
		c.Fail(err)
		return
	}
	rows := make([]endpointRow, len(eps))
	for i, e := range eps {
		rows[i].Endpoint = e
	}
	if c.Session.Can(domain.PermWebhookDeliveryView) {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(4)
		for i := range rows {
			g.Go(func() error {
				ds, err := h.d.Deliveries.List(gctx, c.Session.AccountID, c.Session.Operator.ID, domain.DeliveryFilter{EndpointID: rows[i].Endpoint.ID, Limit: 1})
				if err == nil && len(ds) > 0 {
					rows[i].Last = &ds[0]
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			c.Fail(err)
			return
		}
	}
	c.Render(http.StatusOK, "endpoints", "Webhook endpoints", "endpoints", endpointsPage{Rows: rows, Notice: notice(c.R)})
}

func (h *handler) endpointNew(c *webpage.Call) {
	c.Render(http.StatusOK, "endpoint_form", "New webhook endpoint", "endpoints", endpointForm{AllEvents: domain.EventTypes()})
}

// endpointCreate adds the endpoint and shows its secret in this answer,
// the one time it is ever shown (never in a redirect's URL).
func (h *handler) endpointCreate(c *webpage.Call) {
	f := readEndpointForm(c)
	if f.Errors != nil {
		c.Render(http.StatusUnprocessableEntity, "endpoint_form", "New webhook endpoint", "endpoints", f)
		return
	}
	ep, err := h.d.Endpoints.Create(c.R.Context(), c.Actor(), f.URL, f.Events, f.Description)
	if domain.ErrorCode(err) == domain.ECodeConflict {
		c.MessageWith(http.StatusConflict, msgSecretConflict(), domain.ErrorMessage(err))
		return
	}
	if err != nil {
		refusedForm(c, err, "New webhook endpoint", f)
		return
	}
	c.Log.Info("webhook endpoint created", "endpoint_id", ep.ID)
	c.Render(http.StatusOK, "secret", "Endpoint created", "endpoints", secretPage{Endpoint: subscriptions.Redacted(ep), Secret: ep.Secret})
}

// endpointAt is the endpoint the path's {id} names, as the operator may
// see it; ok is false once the refusal is answered.
func (h *handler) endpointAt(c *webpage.Call) (domain.Endpoint, bool) {
	id, ok := c.PathID()
	if !ok {
		return domain.Endpoint{}, false
	}
	ep, err := h.d.Endpoints.Get(c.R.Context(), c.Actor(), id)
	if err != nil {
		c.Fail(err)
		return domain.Endpoint{}, false
	}
	return ep, true
}

func (h *handler) endpointShow(c *webpage.Call) {
	ep, ok := h.endpointAt(c)
	if !ok {
		return
	}
	ctx, id := c.R.Context(), ep.ID
	var err error
	p := endpointPage{Endpoint: ep, Overlaps: overlaps(), Notice: notice(c.R)}
	p.Rotating = ep.PreviousExpiresAt != nil && h.d.Clock.Now().Before(*ep.PreviousExpiresAt)
	if c.Session.Can(domain.PermWebhookDeliveryView) {
		if p.Recent, err = h.d.Deliveries.List(ctx, c.Session.AccountID, c.Session.Operator.ID, domain.DeliveryFilter{EndpointID: id, Limit: 10}); err != nil {
			c.Fail(err)
			return
		}
	}
	c.Render(http.StatusOK, "endpoint", "Endpoint "+strconv.FormatInt(id, 10), "endpoints", p)
}

func (h *handler) endpointEdit(c *webpage.Call) {
	ep, ok := h.endpointAt(c)
	if !ok {
		return
	}
	c.Render(http.StatusOK, "endpoint_form", "Edit endpoint "+strconv.FormatInt(ep.ID, 10), "endpoints",
		endpointForm{ID: ep.ID, URL: ep.URL, Events: ep.Events, Description: ep.Description, AllEvents: domain.EventTypes()})
}

func (h *handler) endpointUpdate(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	f := readEndpointForm(c)
	f.ID = id
	title := "Edit endpoint " + strconv.FormatInt(id, 10)
	if f.Errors != nil {
		c.Render(http.StatusUnprocessableEntity, "endpoint_form", title, "endpoints", f)
		return
	}
	// Only what the form changes is sent: the service checks only that,
	// so an endpoint whose URL today's rules would refuse can still be
	// described or given other events.
	cur, err := h.d.Endpoints.Get(c.R.Context(), c.Actor(), id)
	if err != nil {
		c.Fail(err)
		return
	}
	ch := subscriptions.Changes{Description: &f.Description}
	if f.URL != cur.URL {
		ch.URL = &f.URL
	}
	if !sameEvents(f.Events, cur.Events) {
		ch.Events = f.Events
	}
	// A form that changes nothing writes nothing, and the page says so.
	_, changed, err := h.d.Endpoints.UpdateChanged(c.R.Context(), c.Actor(), id, ch)
	if err != nil {
		refusedForm(c, err, title, f)
		return
	}
	if !changed {
		webpage.Redirect(c.W, fmt.Sprintf("%s/endpoints/%d?done=unchanged", c.Base, id))
		return
	}
	c.Log.Info("webhook endpoint updated", "endpoint_id", id)
	webpage.Redirect(c.W, fmt.Sprintf("%s/endpoints/%d?done=updated", c.Base, id))
}

// endpointActive enables or disables an endpoint.
func (h *handler) endpointActive(active bool) func(*webpage.Call) {
	done := map[bool]string{true: "enabled", false: "disabled"}[active]
	return func(c *webpage.Call) {
		id, ok := c.PathID()
		if !ok {
			return
		}
		_, changed, err := h.d.Endpoints.UpdateChanged(c.R.Context(), c.Actor(), id, subscriptions.Changes{Active: &active})
		if err != nil {
			c.Fail(err)
			return
		}
		if !changed {
			// Already so: nothing written.
			webpage.Redirect(c.W, fmt.Sprintf("%s/endpoints/%d?done=unchanged", c.Base, id))
			return
		}
		c.Log.Info("webhook endpoint "+done, "endpoint_id", id)
		webpage.Redirect(c.W, fmt.Sprintf("%s/endpoints/%d?done=%s", c.Base, id, done))
	}
}

// endpointRotate gives the endpoint a new secret, shown in this answer
// only; the old one signs too for the overlap chosen.
func (h *handler) endpointRotate(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	var d time.Duration
	for _, o := range overlaps() {
		if c.R.PostForm.Get("overlap") == o.Value {
			d = o.d
		}
	}
	if d == 0 {
		c.MessageWith(http.StatusUnprocessableEntity, webpage.MsgInvalid(), "Choose how long the old secret keeps signing: 1 hour, 24 hours or 7 days.")
		return
	}
	ep, err := h.d.Endpoints.Rotate(c.R.Context(), c.Actor(), id, d)
	if domain.ErrorCode(err) == domain.ECodeConflict {
		c.MessageWith(http.StatusConflict, msgSecretConflict(), domain.ErrorMessage(err))
		return
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("webhook endpoint secret rotated", "endpoint_id", id, "overlap", d.String())
	c.Render(http.StatusOK, "secret", "Secret rotated", "endpoints", secretPage{Endpoint: subscriptions.Redacted(ep), Secret: ep.Secret, Rotated: true})
}

// endpointTest sends a test event and shows its delivery (or, to an
// operator who may not see deliveries, the endpoint).
func (h *handler) endpointTest(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	d, err := h.d.Tester.SendTest(c.R.Context(), c.Actor(), id)
	if err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("webhook test event sent", "endpoint_id", id, "delivery_id", d.ID)
	if c.Session.Can(domain.PermWebhookDeliveryView) && d.ID != "" {
		webpage.Redirect(c.W, c.Base+"/deliveries/"+url.PathEscape(d.ID))
		return
	}
	webpage.Redirect(c.W, fmt.Sprintf("%s/endpoints/%d?done=test", c.Base, id))
}

func (h *handler) endpointDeleteConfirm(c *webpage.Call) {
	ep, ok := h.endpointAt(c)
	if !ok {
		return
	}
	c.Render(http.StatusOK, "endpoint_delete", "Delete endpoint "+strconv.FormatInt(ep.ID, 10), "endpoints", endpointPage{Endpoint: ep})
}

func (h *handler) endpointDelete(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	if err := h.d.Endpoints.Delete(c.R.Context(), c.Actor(), id); err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("webhook endpoint deleted", "endpoint_id", id)
	webpage.Redirect(c.W, c.Base+"/endpoints?done=deleted")
}

// readEndpointForm reads the create and edit form. The URL and the events
// are the service's to check; the description is checked here, as the
// admin commands check it.
func readEndpointForm(c *webpage.Call) endpointForm {
	pf := c.R.PostForm
	f := endpointForm{
		URL: strings.TrimSpace(pf.Get("url")), Description: strings.TrimSpace(pf.Get("description")),
		Events: []domain.EventType{}, AllEvents: domain.EventTypes(), ActionID: c.ActionID,
	}
	for _, e := range pf["events"] {
		f.Events = append(f.Events, domain.EventType(e))
	}
	if p := freetext.Problem(f.Description, freetext.Description); p != "" {
		f.Errors = map[string][]string{"description": {p}}
	}
	return f
}

// sameEvents reports whether two lists name the same event kinds.
func sameEvents(a, b []domain.EventType) bool {
	return slices.Equal(slices.Compact(slices.Sorted(slices.Values(a))), slices.Compact(slices.Sorted(slices.Values(b))))
}

// refusedForm shows the form again with the service's validation
// messages beside their fields; any other refusal gets its own page.
func refusedForm(c *webpage.Call, err error, title string, f endpointForm) {
	if domain.ErrorCode(err) != domain.ECodeInvalid {
		c.Fail(err)
		return
	}
	f.Errors = map[string][]string{}
	for field, msgs := range domain.ErrorFields(err) {
		switch field {
		case "url", "events", "description":
			f.Errors[field] = msgs
		default:
			f.Problem = domain.Refusal(err)
		}
	}
	if len(f.Errors) == 0 && f.Problem == "" {
		f.Problem = domain.ErrorMessage(err)
	}
	c.Render(http.StatusUnprocessableEntity, "endpoint_form", title, "endpoints", f)
}

// notice is the sentence a redirect after a change asks the page to show;
// only these fixed sentences, never text from the URL.
func notice(r *http.Request) string {
	switch r.URL.Query().Get("done") {
	case "updated":
		return "The endpoint was updated."
	case "unchanged":
		return "Nothing was changed: the endpoint was already so."
	case "enabled":
		return "The endpoint was enabled: it receives new events again."
	case "disabled":
		return "The endpoint was disabled: it receives no events until enabled."
	case "deleted":
		return "The endpoint was deleted. Its deliveries stay listed."
	case "test":
		return "A test event was sent to the endpoint."
	case "countries":
		return "The country settings were saved."
	}
	return ""
}
