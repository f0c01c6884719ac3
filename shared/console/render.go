package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// pages are the parsed templates, one per page, each with the layout.
type pages map[string]*template.Template

// pageNames are the templates/<name>.html files.
func pageNames() []string {
	return []string{"message", "signin", "enrol", "enrol_passkey", "passkeys", "queue", "review", "confirm", "execution", "approval", "stale"}
}

// scriptPages are the pages that run a passkey ceremony: only they load
// the script.
var scriptPages = []string{"signin", "enrol_passkey", "passkeys", "confirm", "approval"}

func parsePages() pages {
	funcs := template.FuncMap{
		"newActionID": newActionID,
		"when":        when,
		"whenp":       func(t *time.Time) string { return when(domain.Deref(t)) },
		"age":         age,
		"label":       label,
		"actionLabel": func(a any) string { return actionLabel(domain.Action(fmt.Sprint(a))) },
		"deref":       func(s *string) string { return domain.Deref(s) },
		"join":        strings.Join,
	}
	out := pages{}
	for _, name := range pageNames() {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return out
}

// view is what the layout shows around a page.
type view struct {
	Title  string
	Nav    string // the section the page is in
	Base   string
	CSS    string
	Script string // the passkey script, on the pages that run a ceremony
	// Refresh, when set, reloads the page after that many seconds (a
	// running execution's page): a meta element, no script.
	Refresh int
	Who     *who // nil when nobody is signed in
	CSRF    string
	Page    any
}

// who is the signed-in operator.
type who struct {
	Name       string
	OperatorID int64
	AccountID  int64
	// Full: signed in with a passkey (an enrolment session sees no
	// navigation).
	Full bool
}

// render writes a page to the signed-in operator; it is executed in full
// before anything is sent, so a template error is a clean 500.
func (c *call) render(status int, name, title, nav string, data any) {
	c.h.write(c.w, c.r, status, name, c.signedInView(title, nav, data))
}

// refreshing is render (200) with the page reloading itself after seconds.
func (c *call) refreshing(seconds int, name, title, nav string, data any) {
	v := c.signedInView(title, nav, data)
	v.Refresh = seconds
	c.h.write(c.w, c.r, http.StatusOK, name, v)
}

func (c *call) signedInView(title, nav string, data any) view {
	v := c.h.view(c.r, title, data)
	v.Nav = nav
	v.Who = &who{Name: c.s.Operator.Name, OperatorID: c.s.Operator.ID, AccountID: c.s.AccountID, Full: isFull(c.s)}
	v.CSRF = csrfToken(c.token)
	return v
}

func (h *handler) view(r *http.Request, title string, data any) view {
	base := basePath(r)
	return view{Title: title, Base: base, CSS: h.staticURL(base, "style.css"), Page: data}
}

func (h *handler) write(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	if slices.Contains(scriptPages, name) {
		v.Script = h.staticURL(v.Base, "passkey.js")
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.log(r).Error("console page not rendered", "page", name, "error", err.Error())
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
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// age is a duration as the queue shows it: the largest two units.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d d %d h", int(d.Hours())/24, int(d.Hours())%24)
}

// label is a snake_case value as words: "in_progress" → "in progress".
func label(v any) string {
	if p, ok := v.(*string); ok {
		v = domain.Deref(p)
	}
	return strings.ReplaceAll(fmt.Sprint(v), "_", " ")
}
