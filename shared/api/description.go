package api

import (
	"net/http"

	"github.com/evs-kyb/evs/shared/deploy"
)

// DescriptionContentType is the media type of the OpenAPI document as served
// (RFC 9512).
const DescriptionContentType = "application/yaml"

// NewDescription serves GET /openapi.yaml: the API's OpenAPI 3.1 description
// (OpenAPIDocument), to anyone, with no key. Other paths and methods are
// answered as on every route: 404 and 405 JSON.
func NewDescription() http.Handler {
	doc := OpenAPIDocument()
	return endpointNoAuth(deploy.MustRoute("api-description"), func(w http.ResponseWriter, _ *http.Request, _ map[string]string) error {
		w.Header().Set("Content-Type", DescriptionContentType)
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(doc)
		return err
	})
}
