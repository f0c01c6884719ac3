// Package settings is the customer's settings area as server-rendered web
// pages: webhook endpoints (create, edit, enable, disable, rotate the
// secret, delete, send a test event), their deliveries with redelivery, and
// the account's countries. A person signs in with a portal link; the
// session lives in an HttpOnly cookie, every form carries a CSRF token
// derived from it, and every change goes through the services that check
// permissions and write the audit trail.
//
// New returns one http.Handler for everything under /settings/; wiring it
// to a Lambda function or the local gateway is the caller's.
package settings

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/webpage"
)

// Portal is what the settings area needs of sign-in (portal.Portal has it).
type Portal interface {
	// Session is the live session the token names; portal.ErrNoSession otherwise.
	Session(ctx context.Context, sessionToken string) (portal.Session, error)
	// End ends a session; ending an unknown one is no error.
	End(ctx context.Context, sessionToken string) error
}

// Tester sends an endpoint a test event (delivery.Tester implements it).
type Tester interface {
	// SendTest posts a test event to the endpoint as a delivery of its own,
	// and returns it; the actor needs webhook_endpoint.manage.
	SendTest(ctx context.Context, a domain.Actor, endpointID int64) (domain.Delivery, error)
}

// Countries reads and changes an account's country configurations
// (*store.Store has it).
type Countries interface {
	// not_found: no such account.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// No codes.
	CountryConfigs(ctx context.Context, accountID int64) ([]domain.CountryConfig, error)
	// not_found: no such account; domain.ErrDuplicateAction if the action id
	// was applied before.
	UpdateAccount(ctx context.Context, a domain.Account, countries []domain.CountryConfig, audit domain.AuditRecord) error
}

// Deps are what the settings area is built from.
type Deps struct {
	Portal Portal
	// Endpoints manages webhook endpoints (permissions, URL checks, audit).
	Endpoints *subscriptions.Service
	// Deliveries lists and shows deliveries, and redelivers.
	Deliveries *delivery.Redeliverer
	Tester     Tester
	Countries  Countries
	Catalogue  *country.Catalogue
	// Clock stamps country changes (required).
	Clock domain.Clock
	// Log is the logger when the request's context carries none (the
	// Lambda adapter puts one there, with the request id); nil: slog's default.
	Log *slog.Logger
	// Secure reports whether the browser reached the page over https, so
	// the session cookie is marked Secure; nil: webpage.ForwardedHTTPS.
	Secure func(*http.Request) bool
}

// handler serves the settings area. Everything in it is set by New and
// only read afterwards.
type handler struct {
	d         Deps
	mux       *http.ServeMux
	pages     pages
	static    webpage.Static
	countries []country.Country // the catalogue, by name
	origin    *http.CrossOriginProtection
}

// New returns the settings area's handler, for every path under /settings/.
func New(d Deps) http.Handler {
	if d.Secure == nil {
		d.Secure = webpage.ForwardedHTTPS
	}
	h := &handler{d: d, origin: http.NewCrossOriginProtection()}
	h.static = loadStatic()
	h.pages = parsePages()
	h.countries = catalogue(d.Catalogue)
	h.mux = h.routes()
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header(), h.d.Secure(r))
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		h.message(w, r, http.StatusMethodNotAllowed, msgMethod)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// routes is the route table: each path, its method and who may use it.
func (h *handler) routes() *http.ServeMux {
	m := http.NewServeMux()
	manage, read, view, settings := manageEndpoints, readEndpoints, viewDeliveries, manageSettings

	m.HandleFunc("GET /settings/{$}", h.page(anyone, h.home))
	m.HandleFunc("GET /settings", h.page(anyone, h.home))
	m.HandleFunc("GET /settings/portal", h.forwardLink)
	m.HandleFunc("GET /settings/signed-out", h.signedOut)
	m.HandleFunc("POST /settings/signout", h.post(anyone, false, h.signOut))
	m.HandleFunc("GET /settings/static/{file}", h.serveStatic)

	m.HandleFunc("GET /settings/endpoints", h.page(read, h.endpointList))
	m.HandleFunc("POST /settings/endpoints", h.change(manage, h.endpointCreate))
	m.HandleFunc("GET /settings/endpoints/new", h.page(manage, h.endpointNew))
	m.HandleFunc("GET /settings/endpoints/{id}", h.page(read, h.endpointShow))
	m.HandleFunc("POST /settings/endpoints/{id}", h.change(manage, h.endpointUpdate))
	m.HandleFunc("GET /settings/endpoints/{id}/edit", h.page(manage, h.endpointEdit))
	m.HandleFunc("POST /settings/endpoints/{id}/enable", h.change(manage, h.endpointActive(true)))
	m.HandleFunc("POST /settings/endpoints/{id}/disable", h.change(manage, h.endpointActive(false)))
	m.HandleFunc("POST /settings/endpoints/{id}/rotate", h.change(manage, h.endpointRotate))
	m.HandleFunc("POST /settings/endpoints/{id}/test", h.change(manage, h.endpointTest))
	m.HandleFunc("GET /settings/endpoints/{id}/delete", h.page(manage, h.endpointDeleteConfirm))
	m.HandleFunc("POST /settings/endpoints/{id}/delete", h.change(manage, h.endpointDelete))

	m.HandleFunc("GET /settings/deliveries", h.page(view, h.deliveryList))
	m.HandleFunc("GET /settings/deliveries/{id}", h.page(view, h.deliveryShow))
	m.HandleFunc("POST /settings/deliveries/{id}/redeliver", h.change(manage, h.redeliver))

	m.HandleFunc("GET /settings/countries", h.page(anyone, h.countryList))
	m.HandleFunc("POST /settings/countries", h.change(settings, h.countryChange))

	// Anything else under /settings/, in any method that reached here.
	m.HandleFunc("/settings/", func(w http.ResponseWriter, r *http.Request) { h.message(w, r, http.StatusNotFound, msgNotFound) })
	return m
}

// home sends a signed-in operator to their first page (anyone else gets
// the signed-out page).
func (h *handler) home(c *call) {
	webpage.Redirect(c.w, c.base+landing(c.s))
}

// landing is a session's first page: the endpoints to whom may read them,
// else the countries, which anyone signed in may see.
func landing(s portal.Session) string {
	if readEndpoints.metBy(s) {
		return "/endpoints"
	}
	return "/countries"
}

// catalogue lists the catalogue's countries by name. country.Catalogue
// offers lookups only, so every two-letter code is looked up once.
func catalogue(c *country.Catalogue) []country.Country {
	if c == nil {
		return nil
	}
	var out []country.Country
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if cc, ok := c.ByAlpha2(string([]rune{a, b})); ok {
				out = append(out, cc)
			}
		}
	}
	slices.SortFunc(out, func(x, y country.Country) int { return strings.Compare(x.Name, y.Name) })
	return out
}
