package webpage

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/evs-kyb/evs/shared/portal"
)

// Sessions is what the shell needs of sign-in (*portal.Service has it).
type Sessions interface {
	// Session is the live session the token names; portal.ErrNoSession otherwise.
	Session(ctx context.Context, sessionToken string) (portal.Session, error)
	// End ends a session; ending an unknown one is no error.
	End(ctx context.Context, sessionToken string) error
}

// Config is what a Server is built from. Sessions is required.
type Config struct {
	Sessions Sessions
	// Log is the logger when the request's context carries none (the
	// Lambda adapter puts one there, with the request id); nil: slog's default.
	Log *slog.Logger
	// Secure reports whether the browser reached the page over https, so
	// cookies are marked Secure; nil: ForwardedHTTPS.
	Secure func(*http.Request) bool
	// SignInPath is the sign-in page, under the stage prefix ("/console/"),
	// which messages to a signed-out person point to.
	SignInPath string
}

// Server is the web function's one handler: every area's routes on one
// router, behind the security headers. Everything in it is set while the
// function starts (New, Mount) and only read afterwards.
type Server struct {
	cfg    Config
	mux    *http.ServeMux
	origin *http.CrossOriginProtection
	static Static
	layout fs.FS
	areas  []*Area
	// signIn is the area whose home is the sign-in page (the first mounted
	// with SignInPage set).
	signIn *Area
}

//go:embed static templates
var files embed.FS

// New returns a server with no area mounted yet. A required dependency
// missing is a wiring mistake: New panics, so it shows when the function
// starts rather than at a person's first click.
func New(cfg Config) *Server {
	if cfg.Sessions == nil {
		panic("webpage: the dependency Sessions is required")
	}
	if cfg.Secure == nil {
		cfg.Secure = ForwardedHTTPS
	}
	return &Server{
		cfg: cfg, mux: http.NewServeMux(), origin: http.NewCrossOriginProtection(),
		static: LoadStatic("webpage", files, "static"), layout: files,
	}
}

// ServeHTTP answers GET and POST only, every answer with the security
// headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SecurityHeaders(w.Header(), s.cfg.Secure(r))
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		s.areaOf(r).message(w, r, http.StatusMethodNotAllowed, MsgMethod())
		return
	}
	s.mux.ServeHTTP(w, r)
}

// areaOf is the mounted area whose path the request is under (the first
// mounted when none is).
func (s *Server) areaOf(r *http.Request) *Area {
	for _, a := range s.areas {
		if r.URL.Path == a.spec.Path || len(r.URL.Path) > len(a.spec.Path) && r.URL.Path[:len(a.spec.Path)+1] == a.spec.Path+"/" {
			return a
		}
	}
	if len(s.areas) == 0 {
		panic("webpage: no area mounted")
	}
	return s.areas[0]
}

// log is the request's logger: the one its context carries, else the one
// configured, else slog's default.
func (s *Server) log(r *http.Request) *slog.Logger { return Logger(r, s.cfg.Log) }

func (s *Server) mustNotBeMounted(path string) {
	for _, a := range s.areas {
		if a.spec.Path == path {
			panic(fmt.Sprintf("webpage: %s mounted twice", path))
		}
	}
}
