package webpage

import (
	"html/template"
	"io/fs"
	"net/http"

	"github.com/evs-kyb/evs/shared/portal"
)

// AreaSpec describes an area: where it is served, how its pages look
// beside the others', and how it treats a request without the session it
// needs.
type AreaSpec struct {
	// Path is where the area is served, under the stage prefix: "/console".
	Path string
	// Name names the area in messages: "console", "settings area".
	Name string
	// Brand heads every page and ends every title: "EVS console".
	Brand string
	// Files hold templates/partials.html, templates/<page>.html for each of
	// Pages, and the area's scripts under static/.
	Files fs.FS
	Pages []string
	// Funcs are the area's own template functions, beside the shell's.
	Funcs template.FuncMap
	// Scripts names the script a page loads, by page (none for the rest).
	Scripts map[string]string
	// Nav lists the sections the header offers a signed-in operator.
	Nav func(c *Call) []NavLink
	// Perms is what the area's pages may offer the signed-in operator, as
	// templates read it (.Who.Perms); nil: nothing.
	Perms func(s portal.Session) any
	// SignInPage says the area's home is the sign-in page: a page asked for
	// without a session sends the browser there, and messages point to it.
	// Otherwise such a request is answered with the signed-out message.
	SignInPage bool
	// EnrolPage is where an enrolment session asking for a page it may not
	// see is sent, under Path; "" treats an enrolment session as none.
	EnrolPage string
	// SignedOut is where a sign-out lands, under Path ("/": the home).
	SignedOut string
	// Back is the page a message offers a signed-in operator, under Path.
	Back NavLink
}

// NavLink is a section of the header (or a message's way back): Section
// marks the current one.
type NavLink struct {
	Section, Label, Href string
}

// Area is a mounted area: it adds its routes to the server's router, each
// wrapped by the kind of request it serves (Page, Form, API, Open).
type Area struct {
	s     *Server
	spec  AreaSpec
	pages pages
}

// Mount adds an area to the server: its static files, its sign-out, and a
// not-found page for every other path under it. The area adds its own
// routes with HandleFunc. A mistake in the spec (a template that does not
// parse, a path mounted twice) panics while the function starts.
func (s *Server) Mount(spec AreaSpec) *Area {
	s.mustNotBeMounted(spec.Path)
	if spec.SignedOut == "" {
		spec.SignedOut = "/"
	}
	a := &Area{s: s, spec: spec}
	s.static.add(LoadStatic(spec.Name, spec.Files, "static"))
	a.pages = s.parsePages(spec)
	s.areas = append(s.areas, a)
	if spec.SignInPage && s.signIn == nil {
		s.signIn = a
	}
	a.HandleFunc("GET", "/static/{file}", a.serveStatic)
	a.HandleFunc("POST", "/signout", a.Form(AnySession, Anyone, false, a.signOut))
	// Anything else under the area, in any method that reached here.
	s.mux.HandleFunc(spec.Path+"/", func(w http.ResponseWriter, r *http.Request) { a.message(w, r, http.StatusNotFound, MsgNotFound()) })
	return a
}

// HandleFunc routes method and a path under the area ("" is the area's
// bare path, "/{$}" its home) to h.
func (a *Area) HandleFunc(method, path string, h http.HandlerFunc) {
	a.s.mux.HandleFunc(method+" "+a.spec.Path+path, h)
}

// Base is the area's path as the browser sees it: behind API Gateway's
// stage prefix, when there is one.
func (a *Area) Base(r *http.Request) string { return StagePrefix(r) + a.spec.Path }

// Secure reports whether the request came over https (cookies the area
// sets itself take it).
func (a *Area) Secure(r *http.Request) bool { return a.s.cfg.Secure(r) }

// serveStatic serves the stylesheet or a script, to anyone: the sign-in
// page and the signed-out messages need them.
func (a *Area) serveStatic(w http.ResponseWriter, r *http.Request) {
	if !a.s.static.Serve(w, r.PathValue("file")) {
		a.message(w, r, http.StatusNotFound, MsgNotFound())
	}
}
