package webpage

import (
	"encoding/json"
	"net/http"
)

// maxJSON bounds a script request: a passkey's registration response with
// its attestation is a few kilobytes, a decision's fields a few more.
const maxJSON = 64 << 10

// ReadJSON reads the script's JSON body into v: one object, no field v
// does not name; a refusal is answered.
func (c *Call) ReadJSON(v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(c.W, c.R.Body, maxJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		c.Log.Info("script request unreadable", "error", err.Error())
		c.Message(http.StatusBadRequest, MsgBadForm())
		return false
	}
	if dec.More() {
		c.Message(http.StatusBadRequest, MsgBadForm())
		return false
	}
	return true
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
