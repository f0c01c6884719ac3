// Package generatetest is the test support of the tests that hold a
// generated file to what its generator writes (shared/apiclient's
// client.gen.go, infra/sam's template.yaml): it says where two texts first
// differ.
package generatetest

import (
	"fmt"
	"strings"
)

// FirstDifference names the first line where got and want differ, both
// quoted; "same lines" when they do not (they may differ in a line ending).
func FirstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, generated %q", i+1, gl, wl)
		}
	}
	return "same lines"
}
