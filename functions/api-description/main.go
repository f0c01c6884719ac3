// Command api-description serves GET /openapi.yaml, the API's OpenAPI 3.1
// description (shared/api/openapi.yaml, built in), with no key.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("api-description") }
