package webpage

import (
	"bytes"
	"html/template"
	"maps"
	"net/http"
)

// pages are an area's parsed templates, one per page, each with the
// layout; "message" is the shell's own.
type pages map[string]*template.Template

// parsePages parses each of the area's pages with the layout and the
// area's partials, and the message page with the layout alone.
func (s *Server) parsePages(spec AreaSpec) pages {
	funcs := template.FuncMap{"newActionID": NewActionID}
	maps.Copy(funcs, spec.Funcs)
	out := pages{}
	out["message"] = template.Must(template.New("message").Funcs(funcs).ParseFS(s.layout, "templates/layout.html", "templates/message.html"))
	for _, name := range spec.Pages {
		t := template.Must(template.New(name).Funcs(funcs).ParseFS(s.layout, "templates/layout.html"))
		out[name] = template.Must(t.ParseFS(spec.Files, "templates/partials.html", "templates/"+name+".html"))
	}
	return out
}

// View is what the layout shows around a page.
type View struct {
	Title string
	Brand string
	// Nav are the header's sections; Section is the one the page is in.
	Nav     []NavLink
	Section string
	Base    string
	CSS     string
	Script  string // the page's script, on the pages that have one
	// Refresh, when set, is the seconds after which the page reloads
	// itself (a running execution's page): its template says so in a
	// data-refresh attribute, which its script reads, offering to stop —
	// never a meta refresh, which no one can stop (WCAG 2.2.1).
	Refresh int
	Who     *Who // nil when nobody is signed in
	CSRF    string
	// SignIn is the sign-in page; Back the page a message offers the
	// signed-in operator.
	SignIn string
	Back   NavLink
	Page   any
}

// Who is the signed-in operator.
type Who struct {
	Name       string
	OperatorID int64
	AccountID  int64
	// Full: signed in with a passkey (an enrolment session sees no
	// navigation).
	Full bool
	// Perms is what the area's pages may offer the operator (AreaSpec.Perms).
	Perms any
}

// Render writes a page to the signed-in operator; it is executed in full
// before anything is sent, so a template error is a clean 500.
func (c *Call) Render(status int, name, title, section string, data any) {
	c.area.write(c.W, c.R, status, name, c.signedInView(title, section, data))
}

// Refreshing is Render (200) with the page reloading itself after seconds.
func (c *Call) Refreshing(seconds int, name, title, section string, data any) {
	v := c.signedInView(title, section, data)
	v.Refresh = seconds
	c.area.write(c.W, c.R, http.StatusOK, name, v)
}

// RenderOpen writes a page to someone who may not be signed in.
func (c *Call) RenderOpen(status int, name, title string, data any) {
	c.area.write(c.W, c.R, status, name, c.area.view(c.R, title, data))
}

func (c *Call) signedInView(title, section string, data any) View {
	a := c.area
	v := a.view(c.R, title, data)
	v.Section = section
	v.Who = &Who{Name: c.Session.Operator.Name, OperatorID: c.Session.Operator.ID, AccountID: c.Session.AccountID, Full: IsFull(c.Session)}
	if a.spec.Perms != nil {
		v.Who.Perms = a.spec.Perms(c.Session)
	}
	if a.spec.Nav != nil {
		v.Nav = a.spec.Nav(c)
	}
	v.CSRF = csrfToken(c.Token)
	return v
}

func (a *Area) view(r *http.Request, title string, data any) View {
	base := a.Base(r)
	back := a.spec.Back
	if back.Href != "" {
		back.Href = base + back.Href
	}
	return View{
		Title: title, Brand: a.spec.Brand, Base: base, CSS: a.s.static.URL(base, "style.css"),
		SignIn: StagePrefix(r) + a.s.cfg.SignInPath, Back: back, Page: data,
	}
}

func (a *Area) write(w http.ResponseWriter, r *http.Request, status int, name string, v View) {
	if script := a.spec.Scripts[name]; script != "" {
		v.Script = a.s.static.URL(v.Base, script)
	}
	var buf bytes.Buffer
	if err := a.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		a.s.log(r).Error(a.spec.Name+" page not rendered", "page", name, "error", err.Error())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("The page could not be shown.\n"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
