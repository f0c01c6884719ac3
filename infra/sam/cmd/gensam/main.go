// Command gensam writes template.yaml (make template): the SAM template
// package sam builds from the catalogue. Run it at the repository root.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/evs-kyb/evs/infra/sam"
)

func main() {
	out := flag.String("o", sam.File, "where to write the template")
	flag.Parse()
	b, err := sam.Generate()
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensam:", err)
		os.Exit(1)
	}
}
