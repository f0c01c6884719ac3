package capped_test

import (
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/capped"
)

// Read keeps what a delivery records of a receiver's answer short, and
// says when it cut it.
func ExampleRead() {
	body, more, err := capped.Read(strings.NewReader("<html>a long error page</html>"), 12)
	fmt.Printf("%q %v %v\n", body, more, err)
	// Output:
	// "<html>a long" true <nil>
}
