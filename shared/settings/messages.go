package settings

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/webpage"
)

// msgKind names a page that only says something: a refusal, an error, the
// end of a session.
type msgKind int

const (
	msgNotFound msgKind = iota
	msgMethod
	msgSignedOut
	msgSignedOutDone
	msgLinkUnknown
	msgForbidden
	msgCSRF
	msgStaleForm
	msgBadForm
	msgConflict
	msgSecretConflict
	msgInvalid
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
	// SignIn says how to sign in: on the console, with a passkey.
	SignIn bool
}

func (k msgKind) message() message {
	switch k {
	case msgMethod:
		return message{Title: "Not allowed", Text: "This page answers GET and POST only."}
	case msgSignedOut:
		return message{Title: "Signed out", Text: "You are not signed in, or your session ended.", SignIn: true}
	case msgSignedOutDone:
		return message{Title: "Signed out", Text: "You signed out of the settings area.", SignIn: true}
	case msgLinkUnknown:
		return message{Title: "Link not valid", Text: "This link is not valid. Check that you opened the whole link.", SignIn: true}
	case msgForbidden:
		return message{Title: "Not permitted", Text: "You may not do this."}
	case msgCSRF:
		return message{Title: "Form refused", Text: "This form could not be checked as coming from this settings area. Nothing was changed. Open the page again and repeat."}
	case msgStaleForm:
		return message{Title: "Form incomplete", Text: "This form is missing what names the change. Nothing was changed. Open the page again and repeat."}
	case msgBadForm:
		return message{Title: "Form unreadable", Text: "The form could not be read. Nothing was changed."}
	case msgConflict:
		return message{Title: "Not done", Text: "Nothing more was changed. If you sent this form twice, the first one took effect."}
	case msgSecretConflict:
		return message{Title: "Not done", Text: "Nothing more was changed. If you sent this form twice, the first one took effect, " +
			"and the secret it made cannot be shown again: rotate the endpoint's secret to get a new one."}
	case msgInvalid:
		return message{Title: "Not done", Text: "The request was refused. Nothing was changed."}
	case msgInternal:
		return message{Title: "Something went wrong", Text: "The settings area could not answer. Try again in a moment."}
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

// message writes a message page to the signed-in operator (with the
// navigation and the sign-out form).
func (c *call) message(status int, k msgKind) { c.messageWith(status, k, "") }

func (c *call) messageWith(status int, k msgKind, detail string) {
	m := k.message()
	m.Detail = detail
	if k == msgInternal {
		m.Reference = webpage.RequestID(c.r.Context())
	}
	c.render(status, "message", m.Title, "", m)
}
