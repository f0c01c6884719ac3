// Command create-entity serves POST /api/v1/entities: it validates the
// request, runs the country's intake checks against the providers and writes
// the entity in one transaction.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("create-entity") }
