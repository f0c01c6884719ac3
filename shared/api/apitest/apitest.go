// Package apitest is the test support of shared/api. It holds the API to
// its description: every request a test makes and every answer it gets are
// checked against shared/api/openapi.yaml with libopenapi-validator, and a
// mismatch fails the test (Contract). And it has fakes of the interfaces
// the handlers take (fakes.go), for tests of their branches in memory.
//
// Tests only: it imports testing.
package apitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/evs-kyb/evs/shared/api"
)

// Contract is the parsed description with its validators. Building one
// compiles every schema, so a test binary builds it once and shares it
// (it is safe for concurrent use).
type Contract struct {
	model     *v3.Document
	validator validator.Validator
	schemas   schema_validation.SchemaValidator
	errSchema *base.Schema
}

// Load parses the embedded description.
func Load() (*Contract, error) {
	doc, err := libopenapi.NewDocument(api.OpenAPIDocument())
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		return nil, fmt.Errorf("openapi.yaml: %v", errs)
	}
	c := &Contract{model: &m.Model, validator: v, schemas: schema_validation.NewSchemaValidator(config.WithFormatAssertions())}
	if p, ok := m.Model.Components.Schemas.Get("Error"); ok {
		c.errSchema = p.Schema()
	} else {
		return nil, fmt.Errorf("openapi.yaml: no Error schema")
	}
	return c, nil
}

// Model is the description's model, for tests that compare it with the code.
func (c *Contract) Model() *v3.Document { return c.model }

// Client is an HTTP client whose every exchange is checked: the request
// against its operation (unless it is a deliberately bad one, see Hostile),
// the answer always.
func (c *Contract) Client(tb testing.TB) *http.Client {
	return &http.Client{Transport: c.Transport(tb, http.DefaultTransport)}
}

// Transport wraps next so that every exchange through it is checked.
func (c *Contract) Transport(tb testing.TB, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		var reqBody []byte
		if !isHostile(req) {
			// A hostile body is sent as it is (it may be a stream that
			// never ends): it is not checked.
			var err error
			if reqBody, err = readAll(&req.Body); err != nil {
				return nil, err
			}
		}
		resp, err := next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		respBody, err := readAll(&resp.Body)
		if err != nil {
			return nil, err
		}
		for _, p := range c.Check(req, reqBody, resp, respBody) {
			tb.Errorf("openapi.yaml: %s %s → %d: %s", req.Method, req.URL.RequestURI(), resp.StatusCode, p)
		}
		return resp, nil
	})
}

// Check returns what in the exchange the description does not allow; the
// bodies are given apart, as the caller has read them.
func (c *Contract) Check(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) []string {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	res := *resp
	res.Body = io.NopCloser(bytes.NewReader(respBody))
	res.Request = r

	item, template := c.find(r)
	if item == nil {
		// A path the description has no operation for (an unknown path,
		// or a hostile one that escapes the id segment): the answer must
		// still be an error of the documented shape.
		return c.checkUndescribed(&res, respBody)
	}
	if _, ok := item.GetOperations().Get(strings.ToLower(r.Method)); !ok {
		// Another method on a described path: the description's 405.
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") == "" {
			return []string{fmt.Sprintf("%s on %s answered %d (Allow %q), not 405 with Allow", r.Method, template, res.StatusCode, res.Header.Get("Allow"))}
		}
		return c.checkUndescribed(&res, respBody)
	}
	// The operation is found here, not by the validator: its router takes
	// "12.md" for an {id} of /entities/{id} (a tie it breaks by name).
	var problems []string
	if !isHostile(req) {
		if ok, errs := c.validator.ValidateHttpRequestWithPathItem(r, item, template); !ok {
			problems = append(problems, describe("request", errs)...)
		}
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	if ok, errs := c.validator.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(r, &res, item, template); !ok {
		problems = append(problems, describe("response", errs)...)
	}
	return problems
}

// RequestProblems is what of a body-less request the description does not
// allow (nothing: the request is schema-valid), without sending it: the
// generated requests' test asks it before it sends each one.
func (c *Contract) RequestProblems(req *http.Request) []string {
	item, template := c.find(req)
	if item == nil {
		return []string{"no operation of the description serves " + req.URL.Path}
	}
	if ok, errs := c.validator.ValidateHttpRequestWithPathItem(req, item, template); !ok {
		return describe("request", errs)
	}
	return nil
}

// find is the path item of the request's path (any method: another method
// on a known path is the described 405) and its template.
func (c *Contract) find(r *http.Request) (*v3.PathItem, string) {
	for template, item := range c.model.Paths.PathItems.FromOldest() {
		if matchTemplate(template, r.URL.Path) {
			return item, template
		}
	}
	return nil, ""
}

// matchTemplate matches an OpenAPI path template: {name} is one segment
// (ours are integer ids, so a template's literal suffix such as ".md"
// must follow digits).
func matchTemplate(template, path string) bool {
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i, t := range ts {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			if t != ps[i] {
				return false
			}
			continue
		}
		close := strings.IndexByte(t, '}')
		prefix, suffix := t[:open], t[close+1:]
		seg, ok := strings.CutPrefix(ps[i], prefix)
		if !ok {
			return false
		}
		if seg, ok = strings.CutSuffix(seg, suffix); !ok || seg == "" || (suffix == "" && strings.Contains(seg, ".")) {
			return false
		}
	}
	return true
}

func (c *Contract) checkUndescribed(resp *http.Response, body []byte) []string {
	if resp.StatusCode < 400 {
		return []string{fmt.Sprintf("a path the description does not have answered %d", resp.StatusCode)}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return []string{fmt.Sprintf("an error answered as %q, not application/json", ct)}
	}
	if ok, errs := c.schemas.ValidateSchemaBytes(c.errSchema, body); !ok {
		return describe("error body", errs)
	}
	return nil
}

func describe(what string, errs []*liberrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		s := what + ": " + e.Message
		if e.Reason != "" && e.Reason != e.Message {
			s += " (" + e.Reason + ")"
		}
		for _, se := range e.SchemaValidationErrors {
			s += fmt.Sprintf("; at %s (%s): %s", se.FieldPath, se.KeywordLocation, se.Reason)
		}
		out = append(out, s)
	}
	return out
}

// readAll reads a body and puts an unread copy back in its place.
func readAll(body *io.ReadCloser) ([]byte, error) {
	if *body == nil || *body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(*body)
	(*body).Close()
	*body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
