package webpage

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/domain"
)

// Message is what a page that only says something shows: a refusal, an
// error, the end of a session. Detail comes from a service (a refusal's
// sentence) and, like everything else, is escaped.
type Message struct {
	Title  string
	Text   string
	Detail string
	// Reference is the request id, for the administrator to find the logs
	// (set on an internal error's message).
	Reference string
	// SignIn offers the sign-in page.
	SignIn bool

	internal bool
}

// The messages every area answers with; an area adds its own.
func MsgNotFound() Message { return Message{Title: "Not found", Text: "There is no such page here."} }
func MsgMethod() Message {
	return Message{Title: "Not allowed", Text: "This page answers GET and POST only."}
}
func MsgSignedOut() Message {
	return Message{Title: "Signed out", Text: "You are not signed in, or your session ended.", SignIn: true}
}
func MsgEnrolOnly() Message {
	return Message{Title: "Create your passkey first", Text: "A sign-in link only lets you create your passkey. Create it, then sign in with it."}
}
func MsgForbidden() Message { return Message{Title: "Not permitted", Text: "You may not do this."} }
func MsgCSRF() Message {
	return Message{Title: "Form refused", Text: "This request could not be checked as coming from this site. Nothing was changed. Open the page again and repeat."}
}
func MsgNoOrigin() Message {
	return Message{Title: "Request refused", Text: "This request did not say which site it came from (it carried neither an Origin nor a Sec-Fetch-Site header, which browsers send). Nothing was changed. Open the page again in a browser and repeat."}
}
func MsgStaleForm() Message {
	return Message{Title: "Form incomplete", Text: "This form is missing what names the change. Nothing was changed. Open the page again and repeat."}
}
func MsgBadForm() Message {
	return Message{Title: "Form unreadable", Text: "The form could not be read. Nothing was changed."}
}
func MsgConflict() Message {
	return Message{Title: "Not done", Text: "Nothing more was changed. If you sent this twice, the first one took effect."}
}
func MsgInvalid() Message {
	return Message{Title: "Not done", Text: "The request was refused. Nothing was changed."}
}
func MsgSignature() Message {
	return Message{Title: "Signature refused", Text: "Your passkey's signature was refused. Nothing was submitted."}
}
func MsgInternal() Message {
	return Message{Title: "Something went wrong", Text: "The page could not be answered. Try again in a moment.", internal: true}
}

// Message answers the call with a message: a page (with the navigation
// when signed in), or the script's JSON error.
func (c *Call) Message(status int, m Message) { c.MessageWith(status, m, "") }

// MessageWith is Message with a service's sentence as its detail.
func (c *Call) MessageWith(status int, m Message, detail string) {
	m.Detail = detail
	if m.internal {
		m.Reference = RequestID(c.R.Context())
	}
	switch {
	case c.mode == modeAPI:
		text := m.Text
		if m.Detail != "" {
			text += " " + m.Detail
		}
		if m.Reference != "" {
			text += " Reference: " + m.Reference + "."
		}
		writeJSON(c.W, status, apiError{Error: text})
	case c.Token == "":
		c.area.write(c.W, c.R, status, "message", c.area.view(c.R, m.Title, m))
	default:
		c.Render(status, "message", m.Title, "", m)
	}
}

// message writes a message page for someone who may not be signed in.
func (a *Area) message(w http.ResponseWriter, r *http.Request, status int, m Message) {
	a.visitor(w, r, modePage).Message(status, m)
}

// Fail answers a service's refusal as its message, and a fault as the
// internal error's (logged, never shown): the one table from the domain's
// error codes to what a person is shown.
func (c *Call) Fail(err error) {
	switch domain.ErrorCode(err) {
	case domain.ECodeNotFound:
		c.MessageWith(http.StatusNotFound, MsgNotFound(), domain.ErrorMessage(err))
	case domain.ECodeForbidden, domain.ECodeUnauthorized:
		c.Log.Info(c.area.spec.Name+" action refused", "reason", domain.ErrorMessage(err))
		c.MessageWith(http.StatusForbidden, MsgForbidden(), domain.ErrorMessage(err))
	case domain.ECodeConflict:
		c.Log.Info(c.area.spec.Name+" action conflict", "reason", domain.ErrorMessage(err))
		c.MessageWith(http.StatusConflict, MsgConflict(), domain.ErrorMessage(err))
	case domain.ECodeSignatureRequired:
		c.Log.Info("signature refused", "reason", domain.ErrorMessage(err))
		c.MessageWith(http.StatusForbidden, MsgSignature(), domain.ErrorMessage(err))
	case domain.ECodeInvalid, domain.ECodeBadRequest, domain.ECodeIllegalTransition, domain.ECodeStaleView, domain.ECodeSecondApproverRequired,
		domain.ECodeDecisionBlocked:
		c.MessageWith(http.StatusUnprocessableEntity, MsgInvalid(), domain.Refusal(err))
	default:
		c.Log.Error(c.area.spec.Name+" request failed", "error", err.Error())
		c.Message(http.StatusInternalServerError, MsgInternal())
	}
}
