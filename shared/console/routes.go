package console

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// routes is the route table: each path, its method, the session it takes
// and the permission it needs. Pages are GETs; forms post URL-encoded with
// the CSRF token in a field; the passkey script posts JSON with it in the
// X-CSRF-Token header.
func (h *handler) routes() *http.ServeMux {
	m := http.NewServeMux()
	decide := need{domain.PermReviewDecide}

	m.HandleFunc("GET /console/{$}", h.home)
	m.HandleFunc("GET /console", h.home)
	m.HandleFunc("GET /console/static/{file}", h.serveStatic)

	// Enrolment: a link, then a passkey.
	m.HandleFunc("GET /console/enrol", h.enrolPage)
	m.HandleFunc("POST /console/enrol", h.enrolRedeem)
	m.HandleFunc("GET /console/enrol/passkey", h.page(enrolling, anyone, h.enrolPasskey))
	m.HandleFunc("POST /console/passkeys/options", h.api(enrolling, anyone, h.registerOptions))
	m.HandleFunc("POST /console/passkeys", h.api(enrolling, anyone, h.register))

	// Sign-in with a passkey, and out.
	m.HandleFunc("POST /console/login/options", h.signedOutAPI(h.loginOptions))
	m.HandleFunc("POST /console/login", h.signedOutAPI(h.login))
	m.HandleFunc("POST /console/signout", h.form(enrolling, anyone, false, h.signOut))

	m.HandleFunc("GET /console/passkeys", h.page(full, anyone, h.passkeyList))
	m.HandleFunc("POST /console/passkeys/remove", h.form(full, anyone, true, h.passkeyRemove))

	m.HandleFunc("GET /console/queue", h.page(full, anyone, h.queuePage))
	m.HandleFunc("POST /console/queue/next", h.form(full, decide, true, h.takeNext))

	m.HandleFunc("GET /console/reviews/{id}", h.page(full, anyone, h.reviewPage))
	m.HandleFunc("POST /console/reviews/{id}/confirm", h.form(full, anyone, true, h.confirm))
	m.HandleFunc("POST /console/sign/options", h.api(full, anyone, h.signOptions))
	m.HandleFunc("POST /console/sign", h.api(full, anyone, h.sign))
	m.HandleFunc("GET /console/executions/{name}", h.page(full, anyone, h.executionPage))

	m.HandleFunc("GET /console/approvals/{id}", h.page(full, anyone, h.approvalPage))
	m.HandleFunc("POST /console/approvals/{id}/options", h.api(full, anyone, h.approvalOptions))
	m.HandleFunc("POST /console/approvals/{id}/approve", h.api(full, anyone, h.approve))
	m.HandleFunc("POST /console/approvals/{id}/refuse", h.form(full, anyone, false, h.refuse))

	// Anything else under /console/, in any method that reached here.
	m.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) { h.message(w, r, http.StatusNotFound, msgNotFound) })
	return m
}

// home is the sign-in page, or the queue for whoever is signed in already
// (the passkey page for an enrolment session).
func (h *handler) home(w http.ResponseWriter, r *http.Request) {
	if _, s, ok := h.lookup(r); ok {
		if isFull(s) {
			webpage.Redirect(w, basePath(r)+"/queue")
		} else {
			webpage.Redirect(w, basePath(r)+"/enrol/passkey")
		}
		return
	}
	h.write(w, r, http.StatusOK, "signin", h.view(r, "Sign in", signInPage{
		Options: basePath(r) + "/login/options", Submit: basePath(r) + "/login",
	}))
}

// signInPage is what the sign-in page's script needs.
type signInPage struct {
	Options, Submit string
}
