package console

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// routes is the route table: each path, its method, the session it takes
// and the permission it needs. Pages are GETs; forms post URL-encoded with
// the CSRF token in a field; the passkey script posts JSON with it in the
// X-CSRF-Token header. The shell adds the static files, sign-out and the
// not-found page.
func (h *handler) routes() {
	a := h.area
	full, enrolling, anyone := webpage.Full, webpage.AnySession, webpage.Anyone
	decide := webpage.Need{domain.PermReviewDecide}

	a.HandleFunc("GET", "/{$}", a.OpenPage(h.home))
	a.HandleFunc("GET", "", a.OpenPage(h.home))

	// Enrolment: a link, then a passkey.
	a.HandleFunc("GET", "/enrol", a.OpenPage(h.enrolPage))
	a.HandleFunc("POST", "/enrol", a.OpenForm(h.enrolRedeem))
	a.HandleFunc("GET", "/enrol/passkey", a.Page(enrolling, anyone, h.enrolPasskey))
	a.HandleFunc("POST", "/passkeys/options", a.API(enrolling, anyone, h.registerOptions))
	a.HandleFunc("POST", "/passkeys", a.API(enrolling, anyone, h.register))

	// Sign-in with a passkey (sign-out is the shell's).
	a.HandleFunc("POST", "/login/options", a.OpenAPI(h.loginOptions))
	a.HandleFunc("POST", "/login", a.OpenAPI(h.login))

	a.HandleFunc("GET", "/passkeys", a.Page(full, anyone, h.passkeyList))
	a.HandleFunc("POST", "/passkeys/step-up", a.API(full, anyone, h.stepUpOptions))
	a.HandleFunc("POST", "/passkeys/remove", a.Form(full, anyone, true, h.passkeyRemove))

	a.HandleFunc("GET", "/queue", a.Page(full, anyone, h.queuePage))
	a.HandleFunc("POST", "/queue/next", a.Form(full, decide, true, h.takeNext))

	a.HandleFunc("GET", "/reviews/{id}", a.Page(full, anyone, h.reviewPage))
	a.HandleFunc("POST", "/reviews/{id}/confirm", a.Form(full, anyone, true, h.confirm))
	a.HandleFunc("POST", "/sign/options", a.API(full, anyone, h.signOptions))
	a.HandleFunc("POST", "/sign", a.API(full, anyone, h.sign))
	a.HandleFunc("GET", "/checks/{id}/answer", a.Page(full, anyone, h.answerPageOf))
	a.HandleFunc("GET", "/executions/{name}", a.Page(full, anyone, h.executionPage))

	a.HandleFunc("GET", "/approvals/{id}", a.Page(full, anyone, h.approvalPage))
	a.HandleFunc("POST", "/approvals/{id}/options", a.API(full, anyone, h.approvalOptions))
	a.HandleFunc("POST", "/approvals/{id}/approve", a.API(full, anyone, h.approve))
	a.HandleFunc("POST", "/approvals/{id}/refuse", a.Form(full, anyone, false, h.refuse))
}

// home is the sign-in page, or the queue for whoever is signed in already
// (the passkey page for an enrolment session).
func (h *handler) home(c *webpage.Call) {
	if s, ok := h.area.Lookup(c.R); ok {
		if webpage.IsFull(s) {
			c.Redirect("/queue")
		} else {
			c.Redirect("/enrol/passkey")
		}
		return
	}
	c.RenderOpen(http.StatusOK, "signin", "Sign in", signInPage{Options: c.Base + "/login/options", Submit: c.Base + "/login"})
}

// signInPage is what the sign-in page's script needs.
type signInPage struct {
	Options, Submit string
}
