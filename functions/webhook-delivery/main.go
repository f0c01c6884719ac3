// Command webhook-delivery consumes the deliveries queue: it claims each
// delivery once, signs and posts it, and records the attempt.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("webhook-delivery") }
