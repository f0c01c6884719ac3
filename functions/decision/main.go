// Command decision is the task handler of the decision state machine: it
// validates and applies operator actions on reviews.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("decision") }
