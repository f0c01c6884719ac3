// Command periodic-reviews runs on an EventBridge schedule and opens the
// periodic reviews that are due.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("periodic-reviews") }
