// Command authorizer is the REST API's REQUEST authorizer: Bearer key to
// account and permissions.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("authorizer") }
