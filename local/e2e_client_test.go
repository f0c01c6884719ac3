package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/domain"
)

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.body)
	}
	return m
}

func (f *fixture) get(t *testing.T, path, key string, headers ...string) response {
	return f.do(t, "GET", path, key, headers...)
}

func (f *fixture) do(t *testing.T, method, path, key string, headers ...string) response {
	t.Helper()
	return send(t, method, f.srv.URL+path, key, nil, headers...)
}

// doBad is do for a request that breaks the API's description on purpose.
func (f *fixture) doBad(t *testing.T, method, path, key string, headers ...string) response {
	t.Helper()
	return sendBad(t, method, f.srv.URL+path, key, nil, headers...)
}

// send makes one request with an optional API key, body and header pairs,
// and reads the whole answer. The request and the answer are held to the
// API's description (shared/api/openapi.yaml).
func send(t *testing.T, method, url, key string, body []byte, headers ...string) response {
	t.Helper()
	return exchange(t, false, method, url, key, body, headers...)
}

// sendBad is send for a request that breaks the description on purpose (a
// nonsense filter, a body of the wrong shape, no key): only its answer is
// held to it — bad input must get a documented answer.
func sendBad(t *testing.T, method, url, key string, body []byte, headers ...string) response {
	t.Helper()
	return exchange(t, true, method, url, key, body, headers...)
}

func exchange(t *testing.T, bad bool, method, url, key string, body []byte, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	if bad {
		req = apitest.Hostile(req)
	}
	resp, err := checkedClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func id(d domain.EntityDetail) string { return strconv.FormatInt(d.Entity.ID, 10) }

// errorCode checks the {"error": {"code", "message"}} body and returns the code.
func errorCode(t *testing.T, r response) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok || len(m) != 1 {
		t.Fatalf("error body = %s", r.body)
	}
	msg, _ := e["message"].(string)
	if msg == "" || strings.Contains(msg, "goroutine") || strings.Contains(msg, ".go:") {
		t.Errorf("message %q is empty or leaks internals", msg)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	code, _ := e["code"].(string)
	return code
}
