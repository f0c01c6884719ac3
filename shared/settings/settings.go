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
	"embed"
	"net/http"
	"net/url"
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
	// Endpoints manages webhook endpoints (permissions, URL checks, audit).
	Endpoints *subscriptions.Service
	// Deliveries lists and shows deliveries, and redelivers.
	Deliveries *delivery.Redeliverer
	Tester     Tester
	Countries  Countries
	Catalogue  *country.Catalogue
	// Clock stamps country changes (required).
	Clock domain.Clock
}

// handler serves the settings area's pages. Everything in it is set by
// Mount and only read afterwards.
type handler struct {
	d         Deps
	area      *webpage.Area
	countries []country.Country // the catalogue, by name
}

// Path is where the settings area is served, under the stage prefix.
const Path = "/settings"

//go:embed static templates
var files embed.FS

// Mount adds the settings area to the web function's server, under
// /settings/. Its sessions are the console's passkey sessions: it signs
// no one in itself.
func Mount(s *webpage.Server, d Deps) {
	h := &handler{d: d, countries: catalogue(d.Catalogue)}
	h.area = s.Mount(webpage.AreaSpec{
		Path: Path, Name: "settings area", Brand: "EVS settings", Files: files, Pages: pageNames(), Funcs: funcs(),
		Scripts: map[string]string{"secret": "copy.js"}, Nav: nav, Perms: permsOf, SignedOut: "/signed-out",
		Back: webpage.NavLink{Label: "Back to the endpoints", Href: "/endpoints"},
	})
	h.routes()
}

// The needs of the routes.
var (
	manageEndpoints = webpage.Need{domain.PermWebhookEndpointEdit}
	// Who may see the deliveries may see where they go: reading endpoints
	// (never their secrets) takes either permission, as
	// subscriptions.Service allows.
	readEndpoints  = webpage.Need{domain.PermWebhookEndpointEdit, domain.PermWebhookDeliveryView}
	viewDeliveries = webpage.Need{domain.PermWebhookDeliveryView}
	manageSettings = webpage.Need{domain.PermAccountSettingsManage}
)

// perms is what the pages may offer the signed-in operator.
type perms struct {
	ReadEndpoints, ManageEndpoints, ViewDeliveries, ManageSettings bool
}

func permsOf(s portal.Session) any {
	return perms{
		ReadEndpoints: readEndpoints.MetBy(s), ManageEndpoints: manageEndpoints.MetBy(s),
		ViewDeliveries: viewDeliveries.MetBy(s), ManageSettings: manageSettings.MetBy(s),
	}
}

// nav is the header's sections, those the operator may see, and the
// console beside them.
func nav(c *webpage.Call) []webpage.NavLink {
	var out []webpage.NavLink
	if readEndpoints.MetBy(c.Session) {
		out = append(out, webpage.NavLink{Section: "endpoints", Label: "Endpoints", Href: c.Base + "/endpoints"})
	}
	if viewDeliveries.MetBy(c.Session) {
		out = append(out, webpage.NavLink{Section: "deliveries", Label: "Deliveries", Href: c.Base + "/deliveries"})
	}
	return append(out,
		webpage.NavLink{Section: "countries", Label: "Countries", Href: c.Base + "/countries"},
		webpage.NavLink{Label: "Console", Href: webpage.StagePrefix(c.R) + "/console/"})
}

// routes is the route table: each path, its method and who may use it.
// Every page takes a session signed in with a passkey; the shell adds the
// static files, sign-out and the not-found page.
func (h *handler) routes() {
	a, full, anyone := h.area, webpage.Full, webpage.Anyone
	page := func(n webpage.Need, serve func(*webpage.Call)) http.HandlerFunc { return a.Page(full, n, serve) }
	change := func(n webpage.Need, serve func(*webpage.Call)) http.HandlerFunc { return a.Form(full, n, true, serve) }
	manage, read, view, settings := manageEndpoints, readEndpoints, viewDeliveries, manageSettings

	a.HandleFunc("GET", "/{$}", page(anyone, h.home))
	a.HandleFunc("GET", "", page(anyone, h.home))
	a.HandleFunc("GET", "/portal", a.OpenPage(h.forwardLink))
	a.HandleFunc("GET", "/signed-out", a.OpenPage(h.signedOut))

	a.HandleFunc("GET", "/endpoints", page(read, h.endpointList))
	a.HandleFunc("POST", "/endpoints", change(manage, h.endpointCreate))
	a.HandleFunc("GET", "/endpoints/new", page(manage, h.endpointNew))
	a.HandleFunc("GET", "/endpoints/{id}", page(read, h.endpointShow))
	a.HandleFunc("POST", "/endpoints/{id}", change(manage, h.endpointUpdate))
	a.HandleFunc("GET", "/endpoints/{id}/edit", page(manage, h.endpointEdit))
	a.HandleFunc("POST", "/endpoints/{id}/enable", change(manage, h.endpointActive(true)))
	a.HandleFunc("POST", "/endpoints/{id}/disable", change(manage, h.endpointActive(false)))
	a.HandleFunc("POST", "/endpoints/{id}/rotate", change(manage, h.endpointRotate))
	a.HandleFunc("POST", "/endpoints/{id}/test", change(manage, h.endpointTest))
	a.HandleFunc("GET", "/endpoints/{id}/delete", page(manage, h.endpointDeleteConfirm))
	a.HandleFunc("POST", "/endpoints/{id}/delete", change(manage, h.endpointDelete))

	a.HandleFunc("GET", "/deliveries", page(view, h.deliveryList))
	a.HandleFunc("GET", "/deliveries/{id}", page(view, h.deliveryShow))
	a.HandleFunc("POST", "/deliveries/{id}/redeliver", change(manage, h.redeliver))

	a.HandleFunc("GET", "/countries", page(anyone, h.countryList))
	a.HandleFunc("POST", "/countries", change(settings, h.countryChange))
}

// home sends a signed-in operator to their first page (anyone else gets
// the signed-out page).
func (h *handler) home(c *webpage.Call) { c.Redirect(landing(c.Session)) }

// forwardLink sends a link minted before links became enrolment only
// (<base>/settings/portal?token=…) to the console's enrolment page, which
// shows Continue and redeems it only from there. The settings area itself
// never signs anyone in: its sessions are the console's passkey sessions.
func (h *handler) forwardLink(c *webpage.Call) {
	token, ok := portal.LinkToken(c.R.URL.Query())
	if !ok {
		c.Message(http.StatusNotFound, msgLinkUnknown())
		return
	}
	webpage.Redirect(c.W, webpage.StagePrefix(c.R)+portal.LinkPath+"?"+url.Values{portal.LinkParam: {token}}.Encode())
}

// signedOut is where a sign-out from the settings area lands.
func (h *handler) signedOut(c *webpage.Call) { c.Message(http.StatusOK, msgSignedOutDone()) }

// landing is a session's first page: the endpoints to whom may read them,
// else the countries, which anyone signed in may see.
func landing(s portal.Session) string {
	if readEndpoints.MetBy(s) {
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
