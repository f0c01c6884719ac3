// Command review-events reads the reviews table's stream and queues one
// delivery per review event and subscribed, active endpoint.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("review-events") }
