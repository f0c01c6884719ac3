package main

import (
	"net/http"
	"sync"
	"testing"

	"github.com/evs-kyb/evs/shared/api/apitest"
)

// contract is the API's description, loaded once per test binary (building
// it compiles every schema); it is safe for concurrent use.
var contract = sync.OnceValues(apitest.Load)

// checkedClient is an HTTP client whose every exchange t holds to
// shared/api/openapi.yaml: requests unless marked apitest.Hostile, answers
// always.
func checkedClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	return c.Client(t)
}
