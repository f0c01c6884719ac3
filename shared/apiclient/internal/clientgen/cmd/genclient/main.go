// Command genclient writes shared/apiclient/client.gen.go (make generate):
// the Go client oapi-codegen generates from shared/api/openapi.yaml with
// shared/apiclient/oapi-codegen.yaml. Run it at the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/evs-kyb/evs/shared/apiclient/internal/clientgen"
)

func main() {
	spec := flag.String("spec", "shared/api/openapi.yaml", "the OpenAPI 3.1 document")
	config := flag.String("config", "shared/apiclient/oapi-codegen.yaml", "oapi-codegen's configuration")
	out := flag.String("o", "shared/apiclient/client.gen.go", "where to write the client")
	flag.Parse()
	code, err := clientgen.Generate(context.Background(), *spec, *config)
	if err == nil {
		err = os.WriteFile(*out, code, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genclient:", err)
		os.Exit(1)
	}
}
