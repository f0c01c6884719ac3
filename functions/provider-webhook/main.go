// Command provider-webhook serves POST /webhooks/{provider}: screening
// results signed the Standard Webhooks way, applied once per webhook-id.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("provider-webhook") }
