package seed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/evs-kyb/evs/local/sim"
)

// The providers' answers to demo checks, in their wire formats
// (../shared/providers.md): the register's as local/sim serves it, in the
// state the plan chose; the screening engine's as it answered the name
// (listings.go).

// provider stands in for a provider's API, in process: it answers each
// request with the status and body it makes of it.
type provider func(req *http.Request) (status int, body []byte)

func (p provider) client() *http.Client { return &http.Client{Transport: p} }

// RoundTrip answers without a network, so the same seed gives the same
// bytes.
func (p provider) RoundTrip(req *http.Request) (*http.Response, error) {
	status, body := p(req)
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// failing answers every request with status and body.
func failing(status int, body []byte) provider {
	return func(*http.Request) (int, []byte) { return status, body }
}

// wireJSON encodes an answer as the providers send it: UTF-8 as is, no HTML
// escaping (a name's "&" stays "&"), no trailing newline.
func wireJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("seed: encode an answer: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// wathqProvider answers the current API's GET /commercial-registration/
// fullinfo/{id} with the register reg, and its lookups: the simulator's
// Wathq answers.
func wathqProvider(reg sim.Registration) provider {
	return func(req *http.Request) (int, []byte) {
		switch {
		case strings.HasSuffix(req.URL.Path, "/lookup/status"):
			return http.StatusOK, wireJSON(sim.WathqStatusLookup())
		case strings.HasSuffix(req.URL.Path, "/lookup/managerPositions"):
			return http.StatusOK, wireJSON(sim.WathqPositionsLookup())
		case strings.HasSuffix(req.URL.Path, "/lookup/nationalities"):
			return http.StatusOK, wireJSON(sim.WathqNationalitiesLookup())
		}
		return http.StatusOK, wireJSON(sim.WathqRegisterAnswer(sim.WathqCurrent, path.Base(req.URL.Path), reg))
	}
}

// wathqFailure is Wathq's answer to a request it did not serve, its error
// body {"code": "<status>.<n>.<n>", "message"}.
func wathqFailure(status int) []byte {
	return wireJSON(sim.WathqError(fmt.Sprintf("%d.1.1", status), http.StatusText(status)))
}

// yenteFailure is yente's (FastAPI's) answer to a request it did not serve.
func yenteFailure(status int) []byte {
	return wireJSON(map[string]any{"detail": http.StatusText(status)})
}

// yenteProvider answers POST /match/{dataset} with the engine's recorded
// answer to the name each query sends (listings.go): the results yente
// returned for it, when the check was planned to find something. A
// screening planned clear of a listed name answers none: it ran before the
// party was listed (the demo's rejected entities whose first screening was
// clear).
func yenteProvider(planned string) provider {
	return func(req *http.Request) (int, []byte) {
		var in struct {
			Queries map[string]struct {
				Schema     string              `json:"schema"`
				Properties map[string][]string `json:"properties"`
			} `json:"queries"`
		}
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			panic(fmt.Sprintf("seed: read a screening query: %v", err))
		}
		responses := map[string]any{}
		for ref, q := range in.Queries {
			results := []any{}
			if planned != scrClear {
				for _, name := range q.Properties["name"] {
					results = append(results, recordedResults(name)...)
				}
			}
			responses[ref] = map[string]any{
				"status":  http.StatusOK,
				"results": results,
				"total":   map[string]any{"value": len(results), "relation": "eq"},
				"query":   map[string]any{"schema": q.Schema, "properties": q.Properties},
			}
		}
		return http.StatusOK, wireJSON(map[string]any{
			"responses": responses,
			"limit":     5,
			"matcher":   map[string]any{"name": req.URL.Query().Get("algorithm")},
			"dataset":   path.Base(req.URL.Path),
		})
	}
}
