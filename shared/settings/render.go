package settings

import (
	"bytes"
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// pages are the parsed templates, one per page, each with the layout.
type pages map[string]*template.Template

// pageNames are the templates/<name>.html files.
func pageNames() []string {
	return []string{"message", "endpoints", "endpoint", "endpoint_form", "endpoint_delete", "secret",
		"deliveries", "delivery", "countries"}
}

func parsePages() pages {
	funcs := template.FuncMap{
		"newActionID": newActionID,
		"when":        when,
		"whenp":       func(t *time.Time) string { return when(domain.Deref(t)) },
		"iso":         func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"hasEvent":    slices.Contains[[]domain.EventType, domain.EventType],
		"tone":        tone,
		"rowsAt": func(base string, rows []domain.Delivery) deliveryRows {
			return deliveryRows{Base: base, Rows: rows}
		},
	}
	out := pages{}
	for _, name := range pageNames() {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return out
}

// deliveryRows is the table of deliveries two pages share.
type deliveryRows struct {
	Base string
	Rows []domain.Delivery
}

// view is what the layout shows around a page.
type view struct {
	Title string
	Nav   string // the section the page is in
	Base  string
	// Console is the console's home, where operators sign in.
	Console string
	CSS     string
	Script  string // the copy button's script, on the pages that have one
	Who     *who   // nil when nobody is signed in
	CSRF    string
	Page    any
}

// who is the signed-in operator, and what the pages may offer them.
type who struct {
	Name            string
	OperatorID      int64
	AccountID       int64
	ReadEndpoints   bool
	ManageEndpoints bool
	ViewDeliveries  bool
	ManageSettings  bool
}

// render writes a page; it is executed in full before anything is sent,
// so a template error is a clean 500.
func (c *call) render(status int, name, title, nav string, data any) {
	v := c.h.view(c.r, title, data)
	v.Nav = nav
	v.Who = &who{
		Name: c.s.Operator.Name, OperatorID: c.s.Operator.ID, AccountID: c.s.AccountID,
		ReadEndpoints:   readEndpoints.metBy(c.s),
		ManageEndpoints: manageEndpoints.metBy(c.s),
		ViewDeliveries:  viewDeliveries.metBy(c.s),
		ManageSettings:  manageSettings.metBy(c.s),
	}
	v.CSRF = csrfToken(c.token)
	if name == "secret" {
		v.Script = c.h.staticURL(c.base, "copy.js")
	}
	c.h.write(c.w, c.r, status, name, v)
}

func (h *handler) view(r *http.Request, title string, data any) view {
	base := basePath(r)
	return view{Title: title, Base: base, Console: webpage.StagePrefix(r) + "/console/", CSS: h.staticURL(base, "style.css"), Page: data}
}

func (h *handler) write(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.log(r).Error("settings page not rendered", "page", name, "error", err.Error())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("The page could not be shown.\n"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// when is a time as pages show it.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// tone is the CSS class of a delivery's status: good, bad or waiting.
func tone(s domain.DeliveryStatus) string {
	switch s {
	case domain.DeliveryDelivered:
		return "good"
	case domain.DeliveryFailed:
		return "bad"
	}
	return "wait"
}
