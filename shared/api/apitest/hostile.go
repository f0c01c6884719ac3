package apitest

import (
	"context"
	"net/http"
)

type hostileKey struct{}

// Hostile marks a request that breaks the description on purpose (a
// malformed filter, a body of the wrong type, a missing signature): its
// request is not checked, its answer still is — bad input must get a
// documented answer.
func Hostile(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), hostileKey{}, true))
}

func isHostile(r *http.Request) bool {
	v, _ := r.Context().Value(hostileKey{}).(bool)
	return v
}
