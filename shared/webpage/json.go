package webpage

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// maxJSON bounds a script request: a passkey's registration response with
// its attestation is a few kilobytes, a decision's fields a few more.
const maxJSON = 64 << 10

// ReadJSON reads the script's JSON body into v, strictly (strictjson): one
// value, every key exactly the name of a field of v's (case-sensitive),
// none given twice at any depth, every value of its field's type. So the
// document the handler acts on is the one a person, a log or a later
// reader would read: encoding/json alone would take "Response" for
// "response" and the last of two. A refusal is answered 400 naming the
// key; the log names it too, bounded, and nothing else of the body.
func (c *Call) ReadJSON(v any) bool {
	body, more, err := capped.Read(c.R.Body, maxJSON)
	switch {
	case err != nil:
		c.Log.Info("script request unreadable", "error", err.Error())
		c.Message(http.StatusBadRequest, MsgBadForm())
		return false
	case more:
		c.Log.Info("script request refused", "reason", "its body is over the limit", "limit", maxJSON)
		c.Message(http.StatusRequestEntityTooLarge, MsgBadForm())
		return false
	}
	err = strictjson.Decode(body, v)
	var refused *strictjson.Error
	switch {
	case err == nil:
		return true
	case errors.As(err, &refused):
		c.Log.Info("script request refused", "key", logging.Bounded(refused.Path), "problem", refused.Problem)
		invalid := strictjson.Doc{Of: "this request", Whole: "request"}.Invalid(refused)
		c.MessageWith(http.StatusBadRequest, MsgBadForm(), domain.Refusal(invalid)+".")
	default:
		c.Log.Error("script request not read", "error", err.Error())
		c.Message(http.StatusInternalServerError, MsgInternal())
	}
	return false
}

// apiError is a script's error answer.
type apiError struct {
	Error string `json:"error"`
}

// WriteJSON answers a script.
func (c *Call) WriteJSON(status int, v any) { writeJSON(c.W, status, v) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"The answer could not be written."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
