package console

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// msgKind names a page that only says something: a refusal, an error, the
// end of a session.
type msgKind int

const (
	msgNotFound msgKind = iota
	msgMethod
	msgSignedOut
	msgLinkUnknown
	msgLinkUsed
	msgLinkExpired
	msgOperatorDisabled
	msgEnrolExpired
	msgEnrolOnly
	msgForbidden
	msgCSRF
	msgStaleForm
	msgBadForm
	msgConflict
	msgInvalid
	msgSignature
	msgMaker
	msgInternal
)

// message is what a message page shows. Detail comes from a service (a
// refusal's sentence) and, like everything else, is escaped.
type message struct {
	Title  string
	Text   string
	Detail string
	// Reference is the request id, for the administrator to find the logs.
	Reference string
	// SignIn offers the sign-in page.
	SignIn bool
	// Back is a page to go back to, when there is an obvious one.
	Back, BackLabel string
}

func (k msgKind) message() message {
	switch k {
	case msgMethod:
		return message{Title: "Not allowed", Text: "This page answers GET and POST only."}
	case msgSignedOut:
		return message{Title: "Signed out", Text: "You are not signed in, or your session ended.", SignIn: true}
	case msgLinkUnknown:
		return message{Title: "Enrolment link not valid", Text: "This link is not valid. Check that you opened the whole link, or ask your administrator for a new one."}
	case msgLinkUsed:
		return message{Title: "Enrolment link already used", Text: "This link was used already: each link works once. Sign in with your passkey, or ask your administrator for a new link.", SignIn: true}
	case msgLinkExpired:
		return message{Title: "Enrolment link expired", Text: "This link has expired: a link lasts 15 minutes. Ask your administrator for a new one."}
	case msgOperatorDisabled:
		return message{Title: "Access disabled", Text: "The operator this link was made for is disabled."}
	case msgEnrolExpired:
		return message{Title: "Open the link again", Text: "This page could not be checked as the one your link opened (it is too old, or came from elsewhere). Nothing was used: open the link again."}
	case msgEnrolOnly:
		return message{Title: "Create your passkey first", Text: "A sign-in link only lets you create your passkey. Create it, then sign in with it."}
	case msgForbidden:
		return message{Title: "Not permitted", Text: "You may not do this."}
	case msgCSRF:
		return message{Title: "Form refused", Text: "This request could not be checked as coming from this console. Nothing was changed. Open the page again and repeat."}
	case msgStaleForm:
		return message{Title: "Form incomplete", Text: "This form is missing what names the change. Nothing was changed. Open the page again and repeat."}
	case msgBadForm:
		return message{Title: "Form unreadable", Text: "The form could not be read. Nothing was changed."}
	case msgConflict:
		return message{Title: "Not done", Text: "Nothing more was changed. If you sent this twice, the first one took effect."}
	case msgInvalid:
		return message{Title: "Not done", Text: "The request was refused. Nothing was changed."}
	case msgSignature:
		return message{Title: "Signature refused", Text: "Your passkey's signature was refused. Nothing was submitted."}
	case msgMaker:
		return message{Title: "Not yours to approve", Text: "You made this decision: a second operator must approve or refuse it."}
	case msgInternal:
		return message{Title: "Something went wrong", Text: "The console could not answer. Try again in a moment."}
	}
	return message{Title: "Not found", Text: "There is no such page here."}
}

// message writes a message page for someone who may not be signed in.
func (h *handler) message(w http.ResponseWriter, r *http.Request, status int, k msgKind) {
	m := k.message()
	if k == msgInternal {
		m.Reference = webpage.RequestID(r.Context())
	}
	h.write(w, r, status, "message", h.view(r, m.Title, m))
}

// message answers the call with a message: a page (with the navigation
// when signed in), or the script's JSON error.
func (c *call) message(status int, k msgKind) { c.messageWith(status, k, "") }

func (c *call) messageWith(status int, k msgKind, detail string) {
	m := k.message()
	m.Detail = detail
	if k == msgInternal {
		m.Reference = webpage.RequestID(c.r.Context())
	}
	c.say(status, m)
}

// say writes a message in the call's mode.
func (c *call) say(status int, m message) {
	switch {
	case c.mode == modeAPI:
		text := m.Text
		if m.Detail != "" {
			text += " " + m.Detail
		}
		if m.Reference != "" {
			text += " Reference: " + m.Reference + "."
		}
		writeJSON(c.w, status, apiError{Error: text})
	case c.token == "":
		c.h.write(c.w, c.r, status, "message", c.h.view(c.r, m.Title, m))
	default:
		c.render(status, "message", m.Title, "", m)
	}
}

// fail answers a service's refusal as its message, and a fault as the
// error message (logged, never shown).
func (c *call) fail(err error) {
	switch domain.ErrorCode(err) {
	case domain.ECodeNotFound:
		c.messageWith(http.StatusNotFound, msgNotFound, domain.ErrorMessage(err))
	case domain.ECodeForbidden, domain.ECodeUnauthorized:
		c.log.Info("console action refused", "reason", domain.ErrorMessage(err))
		c.messageWith(http.StatusForbidden, msgForbidden, domain.ErrorMessage(err))
	case domain.ECodeConflict:
		c.log.Info("console action conflict", "reason", domain.ErrorMessage(err))
		c.messageWith(http.StatusConflict, msgConflict, domain.ErrorMessage(err))
	case domain.ECodeSignatureRequired:
		c.log.Info("signature refused", "reason", domain.ErrorMessage(err))
		c.messageWith(http.StatusForbidden, msgSignature, domain.ErrorMessage(err))
	case domain.ECodeInvalid, domain.ECodeBadRequest, domain.ECodeIllegalTransition, domain.ECodeStaleView, domain.ECodeSecondApproverRequired:
		c.messageWith(http.StatusUnprocessableEntity, msgInvalid, domain.Refusal(err))
	default:
		c.log.Error("console request failed", "error", err.Error())
		c.message(http.StatusInternalServerError, msgInternal)
	}
}
