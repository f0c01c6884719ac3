// Command audit-export reads the audit and evidence tables' streams, and
// runs daily on an EventBridge schedule, copying every audit record, chain
// head and evidence body into the records bucket under Object Lock, with
// the day's manifest.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("audit-export") }
