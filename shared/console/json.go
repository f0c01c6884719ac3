package console

import (
	"encoding/json"
	"net/http"
)

// maxJSON bounds a script request: a passkey's registration response with
// its attestation is a few kilobytes, a decision's fields a few more.
const maxJSON = 64 << 10

// readJSON reads the script's JSON body into v: one object, no field v
// does not name; a refusal is answered.
func (c *call) readJSON(v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, maxJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		c.log.Info("script request unreadable", "error", err.Error())
		c.message(http.StatusBadRequest, msgBadForm)
		return false
	}
	if dec.More() {
		c.message(http.StatusBadRequest, msgBadForm)
		return false
	}
	return true
}

// apiError is the script's error answer.
type apiError struct {
	Error string `json:"error"`
}

// next is the script's answer to a finished ceremony: where to go.
type next struct {
	Next string `json:"next"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"The answer could not be written."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
