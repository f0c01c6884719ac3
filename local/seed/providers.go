package seed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"path"
	"strings"

	"github.com/evs-kyb/evs/local/sim"
)

// The providers' answers to demo checks, in their wire formats
// (../shared/providers.md): shaped like local/sim's, but with the outcome
// the plan chose rather than one read from the registration number's last
// digit.

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
// fullinfo/{id} with the register of name in state outcome, and its status
// lookup: the simulator's Wathq answers.
func wathqProvider(name, outcome string) provider {
	return func(req *http.Request) (int, []byte) {
		if strings.HasSuffix(req.URL.Path, "/lookup/status") {
			return http.StatusOK, wireJSON(sim.WathqStatusLookup())
		}
		return http.StatusOK, wireJSON(sim.WathqAnswer(sim.WathqCurrent, path.Base(req.URL.Path), name, outcome))
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

// yenteProvider answers POST /match/{dataset} as the simulator's yente does:
// each query of the batch gets n results of the outcome, echoing the query.
func yenteProvider(o sim.Outcome, n int) provider {
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
			var name string
			if names := q.Properties["name"]; len(names) > 0 {
				name = names[0]
			}
			results := screeningMatches(o, name, n)
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

// screeningMatches are n results for the outcome: the simulator's match
// first (sim.Matches), then weaker ones of the same kind under ids of their
// own, two hundredths apart (a hit stays at or above 0.9, a match that
// needs review at or above the 0.7 threshold).
func screeningMatches(o sim.Outcome, name string, n int) []map[string]any {
	out := make([]map[string]any, 0, n)
	for k := range n {
		m := sim.Matches(o, name)[0]
		if k > 0 {
			score := math.Round((m["score"].(float64)-0.02*float64(k))*100) / 100
			m["id"] = fmt.Sprintf("%s-%d", m["id"], k+1)
			m["score"] = score
			m["explanations"] = map[string]any{"name_literal_match": map[string]any{"score": score}}
		}
		out = append(out, m)
	}
	return out
}
