package api

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.yaml
var openAPIDocument []byte

// OpenAPIDocument is the API's OpenAPI 3.1 description (openapi.yaml), as
// make local and the deployed stage serve it at /openapi.yaml. A copy: the
// embedded bytes stay as built.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIDocument) }
