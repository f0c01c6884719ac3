// Command list-entities serves GET /api/v1/entities.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("list-entities") }
