package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// TestDescription: GET /openapi.yaml is the embedded document, as YAML, with
// no key; anything else is answered as on every route.
func TestDescription(t *testing.T) {
	h := NewDescription()
	tests := []struct {
		name, method, path string
		status             int
		contentType, code  string
		allow              string
	}{
		{name: "the document", method: "GET", path: "/openapi.yaml", status: http.StatusOK, contentType: "application/yaml"},
		{name: "another method", method: "POST", path: "/openapi.yaml", status: http.StatusMethodNotAllowed,
			contentType: "application/json", code: domain.ECodeMethodNotAllowed, allow: "GET"},
		{name: "HEAD, as API Gateway's ANY hands it over", method: "HEAD", path: "/openapi.yaml", status: http.StatusMethodNotAllowed,
			contentType: "application/json", code: domain.ECodeMethodNotAllowed, allow: "GET"},
		{name: "another path", method: "GET", path: "/openapi.json", status: http.StatusNotFound, contentType: "application/json", code: domain.ECodeNotFound},
		{name: "below it", method: "GET", path: "/openapi.yaml/x", status: http.StatusNotFound, contentType: "application/json", code: domain.ECodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %.200s", rec.Code, tt.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.code == "" {
				if !bytes.Equal(rec.Body.Bytes(), OpenAPIDocument()) {
					t.Errorf("the body (%d bytes) is not openapi.yaml (%d bytes)", rec.Body.Len(), len(OpenAPIDocument()))
				}
				return
			}
			var body ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != tt.code {
				t.Errorf("body %s (%v), want the error %s", rec.Body, err, tt.code)
			}
		})
	}
}
